"""The score sheet's data: games, hands, scores, notes and photos.

Pages and the JSON API both go through these functions, so they accept the same input
and fail with the same messages. Rules (values, contracts, doubling, what is possible)
come from the rules engine in :mod:`onze_vision`; this package only stores and adds up.
Bad input raises :class:`InputError` (or the engine's own ``ValueError`` subclasses);
a game, hand or player that does not exist aborts with 404.

One module each:

- :mod:`.inputs`: the limits, the refusals and the parsing of what is typed;
- :mod:`.names`: players' names, cleaned and compared;
- :mod:`.engine`: the rules engine as the sheet asks it;
- :mod:`.games`: games read from the book, whole or summed up;
- :mod:`.scores`: a hand's scores and marks, saved and cleared;
- :mod:`.edits`: a game started, ended, deleted, its players, rules, note and deck changed;
- :mod:`.photos`: photos read, kept and read again;
- :mod:`.housekeeping`: what the book clears by itself;
- :mod:`.rescues`: a book rescued from a damaged one, and what it lost.

Callers use the names below (``model.save_score``); a test that replaces one the package
itself calls replaces it in the module that calls it. Every write goes through
``webapp.db.transaction``, called as ``book.transaction()``: one name to replace.
"""

from __future__ import annotations

from .edits import (
    TYPED_SCORES_NAMED,
    create_game,
    delete_game,
    delete_game_for_good,
    end_game,
    move_player,
    play_on,
    restore_game,
    set_first_dealer,
    set_game_corners,
    set_game_note,
    set_player_names,
    set_variant,
)
from .engine import (
    DEFAULT_VARIANT,
    MAX_PLAYERS,
    all_variants,
    check_go_down,
    is_doubled,
    max_card_value,
    max_points,
    parse_card_list,
    score_cards,
    variant_info,
    variant_summary,
)
from .games import (
    MAX_ROW_ID,
    NAMED_AT_MOST,
    ROW_ID_DIGITS,
    TWIN_MINUTES,
    UNKNOWN_RULES_REMEDY,
    check_hand_and_seat,
    check_seating,
    deal_warnings,
    deleted_games,
    game_changes,
    game_summaries,
    games_by_rules,
    games_of_unknown_rules,
    list_games,
    load_game,
    recent_twin,
    result_text,
    score_version,
    score_words,
    seating_token,
    short_deal_text,
    standings,
    unknown_rules_note,
    unknown_rules_text,
)
from .housekeeping import (
    CLEARINGS_PER_SAVE,
    DELETED_GAME_DAYS,
    GAMES_FORGOTTEN_AT_ONCE,
    PHOTOS_FORGOTTEN_AT_ONCE,
    UNUSED_PHOTO_DAYS,
    clear_old,
    forget_deleted_games,
    forget_unused_photos,
)
from .inputs import (
    DECK_CORNERS,
    HANDS,
    MAX_NAME_LENGTH,
    MAX_NOTE_LENGTH,
    GameEndedError,
    HandChangedError,
    InputError,
    NamesChangedError,
    NoteChangedError,
    ScoreChangedError,
    SeatingChangedError,
    TypedScoresError,
    parse_flag,
    parse_hand_number,
    parse_points,
    parse_splash,
)
from .names import name_key, names_to_save, refused_names
from .photos import (
    EARLIER_PHOTOS_SHOWN,
    PHOTOS_READ_AT_ONCE,
    READING_WAIT_SECONDS,
    DetectorUnavailableError,
    ReadingBusyError,
    copy_game_joker,
    earlier_photos,
    forget_game_joker,
    game_photo,
    get_photo,
    keep_list_with_photo,
    read_photo,
    read_photo_again,
    reading_slot,
    set_game_joker,
    store_photo,
)
from .rescues import mark_rescue_seen, rescues
from .scores import delete_score, hand_fields, save_hand, save_score

__all__ = [
    "CLEARINGS_PER_SAVE", "DECK_CORNERS", "DEFAULT_VARIANT", "DELETED_GAME_DAYS", "EARLIER_PHOTOS_SHOWN",
    "GAMES_FORGOTTEN_AT_ONCE", "HANDS", "MAX_NAME_LENGTH", "MAX_NOTE_LENGTH", "MAX_PLAYERS", "MAX_ROW_ID",
    "NAMED_AT_MOST", "PHOTOS_FORGOTTEN_AT_ONCE", "PHOTOS_READ_AT_ONCE", "READING_WAIT_SECONDS", "ROW_ID_DIGITS",
    "TWIN_MINUTES", "TYPED_SCORES_NAMED", "UNKNOWN_RULES_REMEDY", "UNUSED_PHOTO_DAYS", "DetectorUnavailableError",
    "GameEndedError", "HandChangedError", "InputError", "NamesChangedError", "NoteChangedError", "ReadingBusyError",
    "ScoreChangedError", "SeatingChangedError", "TypedScoresError", "all_variants", "check_go_down",
    "check_hand_and_seat", "check_seating", "clear_old", "copy_game_joker", "create_game", "deal_warnings", "delete_game",
    "delete_game_for_good", "delete_score", "deleted_games", "earlier_photos", "end_game", "forget_deleted_games", "forget_game_joker",
    "forget_unused_photos", "game_changes", "game_photo", "game_summaries", "games_by_rules",
    "games_of_unknown_rules", "get_photo", "hand_fields", "is_doubled", "keep_list_with_photo", "list_games",
    "load_game", "mark_rescue_seen", "max_card_value", "max_points", "move_player", "name_key", "names_to_save",
    "parse_card_list", "parse_flag", "parse_hand_number", "parse_points", "parse_splash", "play_on", "read_photo",
    "read_photo_again", "reading_slot", "recent_twin", "refused_names", "rescues", "restore_game", "result_text",
    "save_hand", "save_score", "score_cards", "score_version", "score_words", "seating_token", "set_first_dealer",
    "set_game_corners", "set_game_joker", "set_game_note", "set_player_names", "set_variant", "short_deal_text", "standings",
    "store_photo", "unknown_rules_note", "unknown_rules_text", "variant_info", "variant_summary",
]
