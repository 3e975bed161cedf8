// The card list editor: chips to remove or change a card, a box to add a missed one,
// and the points recomputed by the server (/api/score) after every change.
"use strict";

(function () {
  function splitCodes(text) {
    return text.split(/[\s,;]+/).filter(function (t) { return t.length > 0; });
  }

  // The common spellings the server reads, spelled here too, so a chip appears as the code
  // is typed: lower case, T for 10, suit symbols. Anything else waits for the server.
  const SUIT_SYMBOLS = { "\u2660": "S", "\u2664": "S", "\u2665": "H", "\u2661": "H",
                         "\u2666": "D", "\u2662": "D", "\u2663": "C", "\u2667": "C" };
  function spelled(code) {
    let text = code.replace(/\ufe0f/g, "").toUpperCase();
    text = text.replace(/[\u2660-\u2667]$/, function (symbol) { return SUIT_SYMBOLS[symbol] || symbol; });
    return text.replace(/^T(?=[SHDC]$)/, "10");
  }

  // A card as a screen reader should say it ("queen of hearts"): the chips' "Q♥" is read by
  // some voices as "Q black heart suit", the Unicode name of ♥.
  const RANK_WORDS = { A: "ace", J: "jack", Q: "queen", K: "king" };
  const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  function spoken(code) {
    if (code === "JK") return "Joker";
    const match = /^(10|[2-9AJQK])([SHDC])$/.exec(code);
    return match ? (RANK_WORDS[match[1]] || match[1]) + " of " + SUIT_WORDS[match[2]] : code;
  }

  function setup(editor) {
    const text = editor.querySelector(".cards-text");
    const chips = editor.querySelector(".chips");
    const addBox = editor.querySelector(".add-card");
    const addText = editor.querySelector(".add-text");
    const addPick = editor.querySelector(".add-pick");
    const addBtn = editor.querySelector(".add-btn");
    const errorBox = editor.querySelector(".editor-error");
    const total = editor.querySelector(".points-total");
    const doubled = editor.querySelector(".points-doubled");
    const breakdown = editor.querySelector(".breakdown");
    const form = editor.closest("form");
    const saveBtn = form ? form.querySelector(".save-btn") : null;
    const scoring = editor.dataset.score === "1";
    // Labels ("Q♥") come from the picker's options, which the server rendered.
    const labels = {};
    Array.prototype.forEach.call(addPick.options, function (o) { if (o.value) labels[o.value] = o.textContent; });
    let cards = splitCodes(text.value);
    let request = 0;

    // A player's list typed and not saved comes back after a reload (a phone may reload the
    // tab while the camera is open). Kept for this page as the server drew it: the same photo
    // and the same saved score; once the server draws another list, the draft is stale.
    const drafts = scoring && form && form.id === "score-form" ? window.sessionStorage : null;
    const photoField = form ? form.querySelector("[name=photo_id]") : null;
    const wasField = form ? form.querySelector("[name=was]") : null;
    const draftKey = "onze-draft:" + window.location.pathname + "|" + (photoField ? photoField.value : "") +
      "|" + (wasField ? wasField.value : "");
    const drawn = cards.join(" ");
    function keepDraft() {
      if (!drafts) return;
      try {
        if (cards.join(" ") === drawn) drafts.removeItem(draftKey);
        else drafts.setItem(draftKey, JSON.stringify({ drawn: drawn, cards: cards }));
      } catch (error) { /* storage full or refused: the list is simply not kept */ }
    }
    if (drafts) {
      try {
        const draft = JSON.parse(drafts.getItem(draftKey) || "null");
        if (draft && draft.drawn === drawn && Array.isArray(draft.cards) && draft.cards.join(" ") !== drawn) {
          cards = draft.cards.map(String);
          const note = document.createElement("p");
          note.className = "meta draft-note";
          note.setAttribute("role", "status");
          note.textContent = "The cards typed before the page reloaded are back: not saved yet.";
          editor.insertBefore(note, editor.firstChild);
        }
      } catch (error) { /* a draft unreadable: the list as drawn */ }
      // Kept through a Save: one that never reaches the server (the Wi-Fi gone) must not
      // cost it. A save that does is said on the next page, which forgets it (app.js).
    }

    addBox.hidden = false;

    // An error about the card list blocks saving it; one about the text being typed into
    // the "add" box (blocksSave false) does not: the list itself is still good.
    function showError(message, blocksSave) {
      // The same message again is not written again: a screen reader would say it again.
      if (errorBox.textContent !== (message || "")) errorBox.textContent = message || "";
      errorBox.hidden = !message;
      editor.classList.toggle("has-error", !!message);
      if (blocksSave !== false) text.setAttribute("aria-invalid", message ? "true" : "false");
      // Blocked, not disabled: a disabled button leaves the Tab order, and a keyboard or screen
      // reader's user looking for Save found nothing; pressed, it says why (below).
      if (saveBtn && (blocksSave !== false || !message)) {
        saveBtn.setAttribute("aria-disabled", message ? "true" : "false");
        if (message) saveBtn.setAttribute("aria-describedby", errorBox.id);
        else saveBtn.removeAttribute("aria-describedby");
      }
    }
    function saveBlocked() { return !!saveBtn && saveBtn.getAttribute("aria-disabled") === "true"; }
    if (saveBtn) {
      saveBtn.addEventListener("click", function (event) {
        if (!saveBlocked()) return;
        event.preventDefault();
        errorBox.setAttribute("tabindex", "-1");
        errorBox.focus();   // read out again, and seen
      });
    }
    if (!errorBox.id) errorBox.id = "editor-error-" + Math.random().toString(36).slice(2);
    text.setAttribute("aria-describedby", errorBox.id);

    // What a screen reader says after each change: what changed and the points, in one short
    // sentence ("Added the 7 of hearts. Points: 37, 4 cards."); the box itself is not a live region, as it
    // read the whole breakdown again on every change.
    const said = document.createElement("p");
    said.className = "visually-hidden";
    said.setAttribute("aria-live", "polite");
    said.setAttribute("aria-atomic", "true");
    editor.appendChild(said);
    let lastChange = "";
    function sayChange(words) { lastChange = lastChange ? lastChange + " " + words : words; }   // two before one answer: both
    function saySummary(points, isDoubled) {
      const count = cards.length + (cards.length === 1 ? " card" : " cards");
      const words = (lastChange ? lastChange + " " : "") +
        (points === null ? count + "." : "Points: " + points + (isDoubled ? ", doubled" : "") + ", " + count + ".");
      lastChange = "";
      if (said.textContent !== words) said.textContent = words;
    }

    function colour(code) {
      if (code === "JK") return "card-joker";
      return /[HD]$/.test(code) ? "card-red" : "card-black";
    }

    const countNote = editor.querySelector(".count-note");
    const dealt = Number(editor.dataset.dealt || 0);
    function sayCount() {
      if (!countNote || !dealt) return;
      const over = cards.length > dealt;
      const words = cards.length + " cards: more than the " + dealt + " dealt. Check that no card is listed twice " +
        "(cards drawn or bought besides the deal count too).";
      if (over && countNote.textContent !== words) countNote.textContent = words;
      countNote.hidden = !over;
    }

    // A pick made with a pointer (a tap, a click, a phone's own list) or in the opened list
    // counts at once; a closed picker moved through by the keyboard (each arrow or letter picks
    // there) counts on Enter, or (``commitOnLeave``, a chip's) when left: K pressed three times
    // added K♠ three times. Escape puts it back (``revert``); the add picker left shows its
    // choice still, for its Add button.
    function onPicked(select, commit, revert, commitOnLeave) {
      let keyed = false;     // a change fired by the key being pressed now
      let pending = false;   // a choice moved to by the keyboard, not counted yet
      select.addEventListener("keydown", function (event) {
        if (event.key === "Enter") {
          if (pending) { event.preventDefault(); pending = false; commit(); }
          return;
        }
        if (event.key === "Escape") { if (pending) { pending = false; revert(); } return; }
        // A closed picker changes within the key's own default action; a change that comes
        // later is one chosen in the opened list (Enter there, or every arrow on macOS opens it).
        keyed = true;
        setTimeout(function () { keyed = false; }, 0);
      });
      select.addEventListener("change", function () {
        if (keyed) { pending = true; return; }
        pending = false;
        commit();
      });
      select.addEventListener("blur", function () {
        if (!pending) return;
        pending = false;
        if (commitOnLeave) commit();
      });
    }

    // Words shown ("Q\u2665 10") and words said ("queen of hearts, 10") in one element, as the
    // page's own are drawn (_macros.html, said()).
    function appendShownAndSaid(element, shown, said) {
      const seen = document.createElement("span");
      seen.setAttribute("aria-hidden", "true");
      seen.textContent = shown;
      const heard = document.createElement("span");
      heard.className = "visually-hidden";
      heard.textContent = said;
      element.appendChild(seen);
      element.appendChild(heard);
    }

    // Words around a card, the card shown as the chips show it and said in words.
    function sayCard(element, before, code, after) {
      element.textContent = before;
      appendShownAndSaid(element, labels[code] || code, spoken(code));
      if (after) element.appendChild(document.createTextNode(after));
    }

    // A chip's colour and names, for ``code`` in place ``i``: when drawn, and when changed in place.
    function nameChip(li, select, remove, i, code) {
      li.className = "chip card " + (labels[code] ? colour(code) : "card-bad");
      select.setAttribute("aria-label", "Card " + (i + 1) + ", " + spoken(code) + ": change it");
      remove.setAttribute("aria-label", "Remove " + spoken(code));
    }

    // The photo's boxes follow the list: a box whose card has left it is greyed, one offered
    // as possibly missed and added is drawn as read, and a chip pointed at or focused lights
    // the boxes of its card, so that which box is which chip shows without numbers.
    const boxes = Array.prototype.slice.call(document.querySelectorAll("svg.boxes g.box[data-card]"));
    function markBoxes() {
      if (!boxes.length) return;
      const left = {};   // the list's cards not yet matched to a box, by code
      cards.forEach(function (code) { left[code] = (left[code] || 0) + 1; });
      function take(g) {   // the code it counts as: its own, else (read unsure, then swapped) its alternative; or null
        const codes = [g.getAttribute("data-card"), g.getAttribute("data-alt")];
        for (let k = 0; k < codes.length; k++) {
          if (codes[k] && left[codes[k]] > 0) { left[codes[k]] -= 1; return codes[k]; }
        }
        return null;
      }
      // Each box's label says the card it now stands for: a swapped reading its new card, one
      // added from "possibly missed" without its question mark; null puts back the label drawn.
      function label(g, code) {
        const text = g.querySelector("text");
        if (!text) return;
        if (!g.hasAttribute("data-label")) g.setAttribute("data-label", text.textContent);
        const words = code ? labels[code] || code : g.getAttribute("data-label");
        if (text.textContent !== words) text.textContent = words;
      }
      boxes.forEach(function (g) {
        if (g.classList.contains("maybe")) return;
        const counted = take(g);
        g.classList.toggle("gone", counted === null);
        label(g, counted !== null && counted !== g.getAttribute("data-card") ? counted : null);
      });
      boxes.forEach(function (g) {
        if (!g.classList.contains("maybe")) return;
        const counted = take(g);
        g.classList.toggle("taken", counted !== null);
        label(g, counted);
      });
    }
    function light(code) {
      boxes.forEach(function (g) {
        g.classList.toggle("lit", code !== null &&
          (g.getAttribute("data-card") === code || g.getAttribute("data-alt") === code));
      });
    }

    function render() {
      keepDraft();
      sayCount();
      markBoxes();
      // The chips are drawn anew on every change: focus on one of them (a keyboard or a
      // screen reader's user) stays at its place, else it would fall back to the page's top.
      const active = document.activeElement;
      const focused = chips.contains(active) ? {
        index: Array.prototype.indexOf.call(chips.children, active.closest("li")),
        part: active.tagName === "SELECT" ? "select" : ".chip-remove",
      } : null;
      // While the box is being typed in, its text is the player's own: never rewritten.
      if (document.activeElement !== text) text.value = cards.join(" ");
      chips.innerHTML = "";
      cards.forEach(function (code, i) {
        const li = document.createElement("li");
        const select = document.createElement("select");
        select.autocomplete = "off";   // Back must not restore an old page's choice into it
        if (!labels[code]) select.appendChild(new Option(code + " ?", code, true, true));
        Object.keys(labels).forEach(function (c) {
          const option = new Option(labels[c], c, false, c === code);
          option.setAttribute("aria-label", spoken(c));   // said in words, as the add picker's
          select.appendChild(option);
        });
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "chip-remove";
        remove.textContent = "\u00d7";
        nameChip(li, select, remove, i, code);
        li.addEventListener("mouseenter", function () { light(cards[i]); });
        li.addEventListener("focusin", function () { light(cards[i]); });
        li.addEventListener("mouseleave", function () { light(null); });
        li.addEventListener("focusout", function () { light(null); });
        remove.addEventListener("click", function () {
          sayChange("Removed the " + spoken(cards[i]) + ".");
          cards.splice(i, 1);
          changed();
        });
        // A chip changed is mended in place, not redrawn: it may be changed on leaving it, as
        // focus or a click moves to the next control, which a redraw would take away.
        onPicked(select, function () {
          const picked = select.value;
          if (cards[i] === picked) return;
          if (!labels[cards[i]]) {   // an unknown code mended: no longer offered
            Array.prototype.slice.call(select.options).forEach(function (o) { if (o.value === cards[i]) o.remove(); });
          }
          sayChange("Card " + (i + 1) + " is the " + spoken(picked) + ".");
          cards[i] = picked;
          nameChip(li, select, remove, i, picked);
          markBoxes();
          light(picked);
          keepDraft();
          if (document.activeElement !== text) text.value = cards.join(" ");
          rescore();
        }, function () { select.value = cards[i]; }, true);
        li.appendChild(select);
        li.appendChild(remove);
        chips.appendChild(li);
      });
      if (focused) {
        // A removed card's place goes to the next one (the last, or the add box, at the end).
        const items = chips.children;
        if (items.length) items[Math.min(focused.index, items.length - 1)].querySelector(focused.part).focus();
        else addText.focus();
      }
    }

    // Without scoring (the go-down page) the server still spells the cards.
    async function canonicalize() {
      const mine = ++request;
      if (!cards.length) { showError(""); saySummary(null, false); return; }
      const answer = await window.onze.postJSON("/api/cards/parse", { cards: cards });
      if (mine !== request) return;
      if (!answer.ok) { showError(answer.data.error); saySummary(null, false); return; }
      showError("");
      if (answer.data.cards.join(" ") !== cards.join(" ")) { cards = answer.data.cards; render(); }
      saySummary(null, false);   // no points here: what changed and how many cards
    }

    async function rescore() {
      if (!scoring) { await canonicalize(); return; }
      const mine = ++request;
      if (!cards.length && editor.dataset.emptyOk !== "1") {
        // No cards is no score (only the player who went out has none): not a green 0.
        showError("");
        total.textContent = "\u2013";
        doubled.hidden = true;
        breakdown.innerHTML = "";
        saySummary(null, false);
        return;
      }
      const body = { cards: cards, splash: editor.dataset.splash === "1" };
      if (editor.dataset.gameId) body.game_id = Number(editor.dataset.gameId);
      else body.variant = editor.dataset.variant;
      if (editor.dataset.hand) body.hand = Number(editor.dataset.hand);
      const answer = await window.onze.postJSON("/api/score", body);
      if (mine !== request) return; // a newer change is on its way
      if (!answer.ok) {
        showError(answer.data.error);
        total.textContent = "\u2013";
        breakdown.innerHTML = "";
        saySummary(null, false);
        return;
      }
      showError("");
      const result = answer.data;
      if (result.cards && result.cards.length === cards.length) {
        const canonical = result.cards.join(" ");
        if (canonical !== cards.join(" ")) { cards = result.cards.slice(); render(); }
      }
      if (total.textContent !== String(result.points)) total.textContent = result.points;
      saySummary(result.points, result.doubled);
      doubled.hidden = !result.doubled;
      const items = result.breakdown.map(function (item) { return item.card + " " + item.points; });
      const shown = Array.prototype.map.call(breakdown.children, function (li) { return li.dataset.item; });
      if (items.join("|") !== shown.join("|")) {
        breakdown.innerHTML = "";
        result.breakdown.forEach(function (item, i) {
          // Shown as the chips show it, said in words as the chips say it.
          const li = document.createElement("li");
          li.dataset.item = items[i];
          appendShownAndSaid(li, (labels[item.card] || item.card) + " " + item.points,
                             spoken(item.card) + ", " + item.points);
          breakdown.appendChild(li);
        });
      }
    }

    function changed() { render(); rescore(); }

    async function addTyped() {
      const typed = addText.value.trim();
      if (!typed) return;
      const answer = await window.onze.postJSON("/api/cards/parse", { text: typed });
      if (!answer.ok) { showError(answer.data.error, false); addText.focus(); return; }
      addText.value = "";
      cards = cards.concat(answer.data.cards);
      sayChange("Added the " + answer.data.cards.map(spoken).join(", the ") + ".");
      changed();
    }

    function addPicked() {
      if (!addPick.value) return;
      sayChange("Added the " + spoken(addPick.value) + ".");
      cards.push(addPick.value);
      addPick.value = "";
      changed();
    }
    addBtn.addEventListener("click", function () {
      if (addText.value.trim()) { addTyped(); return; }
      addPicked();
    });
    onPicked(addPick, addPicked, function () { addPick.value = ""; }, false);
    addText.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); addTyped(); }
    });
    // The box's codes, each in the chips' spelling where it is one of the 53 codes.
    function boxCards() {
      return splitCodes(text.value).map(function (code) { return labels[spelled(code)] ? spelled(code) : code; });
    }
    // Leaving the box: the chips were drawn while typing, so they are redrawn only if the
    // list differs. A redraw would take away the chip a finger or the Tab key is moving to.
    text.addEventListener("change", function () {
      const read = boxCards();
      if (read.join(" ") === cards.join(" ")) {
        text.value = cards.join(" ");
        rescore();
        return;
      }
      cards = read;
      changed();
    });

    // The chips and points follow the typing, so nothing below the box jumps when it is
    // left: a tap on Save right after typing lands on Save. A code still being typed
    // (the last one, no space after it yet) joins once it names a card.
    function typedCards() {
      const typed = boxCards();
      const last = typed[typed.length - 1];
      if (last !== undefined && !/[\s,;]$/.test(text.value) && !labels[last]) typed.pop();
      return typed;
    }
    let typing = 0;
    // Enter reads the typed list first: a list the server refuses is said once, beside
    // the chips, and not sent; a good one is sent as the Save button would send it.
    text.addEventListener("keydown", async function (event) {
      if (event.key !== "Enter" || !form) return;
      event.preventDefault();
      clearTimeout(typing);
      cards = boxCards();
      render();
      await rescore();
      if (editor.classList.contains("has-error") || saveBlocked()) return;
      // A click on the submit button, not form.requestSubmit: iOS before 16 lacks it.
      const submitter = saveBtn || form.querySelector("[type=submit]");
      if (submitter) submitter.click(); else form.submit();
    });
    text.addEventListener("input", function () {
      cards = typedCards();
      render();
      // Every code known here: an error about a code just mended goes at once, so Save
      // is not still blocked when the finger reaches it (the server says again if need be).
      if (cards.every(function (code) { return labels[code]; })) showError("");
      clearTimeout(typing);
      typing = setTimeout(rescore, 250);
    });

    // "It is 6H" beside a reading the detector was unsure of (the photo's check list):
    // one tap swaps one such card in this list. Only the page's first editor takes them.
    if (editor === document.querySelector(".card-editor")) {
      document.querySelectorAll(".swap-btn").forEach(function (button) {
        button.hidden = false;
        button.addEventListener("click", function () {
          const i = cards.indexOf(button.dataset.from);
          button.disabled = true;
          if (i < 0) {
            sayCard(button, "", button.dataset.from, " is no longer in the list");
            return;
          }
          cards[i] = button.dataset.to;
          sayChange("Card " + (i + 1) + " is the " + spoken(button.dataset.to) + ".");
          sayCard(button, "Changed to ", button.dataset.to);
          changed();
          // The button is spent: focus goes to the card it changed, not to the page's top.
          chips.children[i].querySelector("select").focus();
        });
      });
      // "Add 7H" beside a card possibly missed: one tap adds it to the list.
      document.querySelectorAll(".add-maybe-btn").forEach(function (button) {
        button.hidden = false;
        button.addEventListener("click", function () {
          cards.push(button.dataset.card);
          sayChange("Added the " + spoken(button.dataset.card) + ".");
          button.disabled = true;
          sayCard(button, "Added ", button.dataset.card);
          changed();
          chips.lastElementChild.querySelector("select").focus();   // the card just added
        });
      });
    }

    changed();
  }

  document.querySelectorAll(".card-editor").forEach(setup);
})();
