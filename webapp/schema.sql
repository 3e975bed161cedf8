-- Onze Vision score sheet. Every statement is idempotent (IF NOT EXISTS) so the
-- app can make sure the schema exists on first use; `flask init-db --reset` drops it.

CREATE TABLE IF NOT EXISTS game (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    variant TEXT NOT NULL,
    decks INTEGER NOT NULL,
    first_dealer INTEGER NOT NULL,          -- seat number, 1-based
    note TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    -- Which corners of the deck's cards carry an index, as the players said: how the
    -- detector joins a card's corners (onze_vision.detector_config.DECK_CORNERS). A database made
    -- before this column gets it from db.add_missing_columns.
    corners TEXT NOT NULL DEFAULT 'auto' CHECK (corners IN ('auto', 'two', 'four')),
    -- How many times the sheet has changed: a page open on another phone polls it to show
    -- new scores (updated counts whole seconds, and two saves can share one).
    changes INTEGER NOT NULL DEFAULT 0,
    -- When the game was deleted (UTC), NULL while it is in the book: a deleted game is kept
    -- DELETED_GAME_DAYS days to bring back, then removed with its scores and photos.
    deleted TEXT,
    -- The last hand played where the table stopped early (it is late, a player leaves): the
    -- game is over, judged on hands 1 to it; NULL while the game runs to hand 7.
    ended_after INTEGER CHECK (ended_after BETWEEN 1 AND 6),
    -- How the deck's Joker looks, as the players showed it in a photo
    -- (onze_vision.jokers.JokerLook.to_text); NULL: not shown. Photos read from then on
    -- read an index that looks like it as a Joker.
    joker_look TEXT
);

CREATE TABLE IF NOT EXISTS player (
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,                   -- 1-based, in playing order (the deal passes left)
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- One row per hand that has something recorded: who went out, splash, the note.
CREATE TABLE IF NOT EXISTS hand (
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 7),
    out_seat INTEGER,                        -- NULL: nobody marked as out yet
    splash INTEGER NOT NULL DEFAULT 0,
    note TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (game_id, number)
);

CREATE TABLE IF NOT EXISTS photo (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER REFERENCES game (id) ON DELETE CASCADE,
    mime TEXT NOT NULL,
    data BLOB NOT NULL,
    reading TEXT NOT NULL,                   -- JSON of the detector's PhotoReading
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    -- When the photo was kept smaller, its game over (UTC; webapp.keepsake): NULL while it
    -- is kept as taken. Found through the index db.ADDED_INDEXES makes, not the rows.
    keepsake TEXT
);

-- A photo whose cards were added to a hand's list (a hand in two photos, a card missed and
-- photographed alone): the cards the list held before, and the photo shown with them. A
-- photo a score uses keeps the earlier photos of its hand (model.forget_unused_photos).
CREATE TABLE IF NOT EXISTS photo_addition (
    photo_id INTEGER PRIMARY KEY REFERENCES photo (id) ON DELETE CASCADE,
    earlier_id INTEGER REFERENCES photo (id) ON DELETE SET NULL,
    cards_before TEXT NOT NULL               -- JSON list of card codes
);
-- A photo deleted sets its later photos' earlier_id to NULL: found by index, not a scan.
CREATE INDEX IF NOT EXISTS photo_addition_earlier ON photo_addition (earlier_id);

-- One row per (game, hand, player): saving one player's score touches only its row,
-- so two people saving different players at once cannot overwrite each other.
CREATE TABLE IF NOT EXISTS score (
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    hand INTEGER NOT NULL CHECK (hand BETWEEN 1 AND 7),
    seat INTEGER NOT NULL,
    base INTEGER NOT NULL CHECK (base >= 0), -- points of the cards left, before any doubling
    points INTEGER NOT NULL CHECK (points >= 0), -- what the sheet shows (doubled on a splash)
    cards TEXT,                              -- JSON list of card codes; NULL when typed
    photo_id INTEGER REFERENCES photo (id) ON DELETE SET NULL,
    updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    PRIMARY KEY (game_id, hand, seat)
);

-- A book made of what could still be read of a damaged one (db.rescue_copy) says so, and
-- what could not be read, on its home page and History: one row per rescue.
CREATE TABLE IF NOT EXISTS rescue (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    made TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    lost TEXT NOT NULL,                      -- JSON {table: rows that could not be read; -1: all}
    kept TEXT NOT NULL,                      -- JSON {table: rows copied}
    seen TEXT                                -- when a player said they read it; NULL until then
);

-- Found by index, not by reading every photo: a photo's created time lies after its
-- megabytes, so a scan for old unused photos read the whole book on every upload (950 MB
-- in a book of 300 photos), and deleting a game searched every score and photo.
CREATE INDEX IF NOT EXISTS photo_created ON photo (created);
CREATE INDEX IF NOT EXISTS photo_game ON photo (game_id);
CREATE INDEX IF NOT EXISTS score_photo ON score (photo_id);
