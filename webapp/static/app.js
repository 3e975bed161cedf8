// Onze Vision: small helpers shared by every page. No framework, no external assets.
"use strict";

window.onze = (function () {
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";

  // POST JSON to our own API; resolves to {ok, status, data}.
  async function postJSON(url, body) {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
    } catch (error) {   // no answer at all: said where the page shows its errors, not only in a console
      return { ok: false, status: 0, data: { error: UNREACHABLE } };
    }
    let data = {};
    try { data = await response.json(); } catch (e) { data = { error: "The server sent no answer (" + response.status + ")." }; }
    return { ok: response.ok, status: response.status, data: data };
  }

  // fetch, given up after ``ms`` (an answer that never comes must not hold the page):
  // rejects as fetch does when there is no answer, with {late: true} when it was given up.
  async function fetchWithin(url, init, ms) {
    const stop = typeof AbortController === "function" ? new AbortController() : null;
    let late = false;
    const timer = stop ? setTimeout(function () { late = true; stop.abort(); }, ms) : null;
    try {
      return await fetch(url, Object.assign({}, init, stop ? { signal: stop.signal } : {}));
    } catch (error) {
      throw { late: late, error: error };
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  // Whether the score sheet answers at all (any status will do: a HEAD of a form's own address).
  async function isReachable(url) {
    try {
      // Given up before a form's send-once guard lets a second tap through (4 s): one check at a time.
      await fetchWithin(url, { method: "HEAD", cache: "no-store", credentials: "same-origin" }, 3500);
      return true;
    } catch (error) {
      return false;
    }
  }

  const UNREACHABLE = "The score sheet can't be reached (is the laptop asleep, or the Wi-Fi off?): nothing was " +
    "sent, and what you typed is still here. Try again once it is back.";

  return { csrf: csrf, postJSON: postJSON, fetchWithin: fetchWithin, isReachable: isReachable, UNREACHABLE: UNREACHABLE };
})();

document.documentElement.classList.add("js");

// A player's score changed (saved, cleared, put back): the card list typed on that player's
// page and kept for a reload (cards.js) is spent. Done before the page's own scripts run.
document.querySelectorAll("[data-forget-draft]").forEach(function (marker) {
  try {
    const prefix = "onze-draft:" + marker.dataset.forgetDraft + "|";
    for (let i = window.sessionStorage.length - 1; i >= 0; i--) {
      const key = window.sessionStorage.key(i);
      if (key && key.indexOf(prefix) === 0) window.sessionStorage.removeItem(key);
    }
  } catch (error) { /* storage refused: nothing was kept */ }
});

// A field's problem is tied to it, not only said: a screen reader names the message with the
// field (aria-describedby) and says the field is wrong (aria-invalid) until it is put right.
function describeProblem(field, message, wrong) {
  if (!message.id) message.id = (field.id || field.name || "field") + "-problem";
  const ids = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
    return id && id !== message.id;
  });
  if (wrong) ids.push(message.id);
  if (ids.length) field.setAttribute("aria-describedby", ids.join(" ")); else field.removeAttribute("aria-describedby");
  if (wrong) field.setAttribute("aria-invalid", "true"); else field.removeAttribute("aria-invalid");
}

document.addEventListener("DOMContentLoaded", function () {
  // A refused form's message is read out and seen: focus the field it is about, else the message.
  if (!document.querySelector("[autofocus]")) {
    const problem = document.querySelector(".flash-error, .twin-game");
    if (problem) { problem.setAttribute("tabindex", "-1"); problem.focus(); }
  }

  // Times are kept in UTC; show them in the reader's own time zone.
  document.querySelectorAll("time.utc").forEach(function (element) {
    const date = new Date(element.getAttribute("datetime"));
    if (!isNaN(date)) {
      element.textContent = date.toLocaleString([], {   // not dateStyle/timeStyle: iOS before 14.5 ignores them
        year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
      element.title = element.getAttribute("datetime").replace("T", " ").replace("Z", " UTC");
    }
  });

  // A sheet wider than the phone says so: the last players' columns are off screen.
  const hintWideSheets = function () {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      const hint = wrap.previousElementSibling;
      if (hint && hint.classList.contains("scroll-hint")) hint.hidden = wrap.scrollWidth <= wrap.clientWidth + 1;
    });
  };
  hintWideSheets();
  window.addEventListener("resize", hintWideSheets);

  // Print buttons.
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });

  // Forms that destroy something ask first; every form sends once (a double tap on
  // "Start the game" would otherwise start two games).
  document.querySelectorAll("form[method=post]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
        event.preventDefault();
        return;
      }
      if (form.dataset.sent) {
        event.preventDefault();
        return;
      }
      form.dataset.sent = "1";
      // Re-enable after a while: a page kept open (bfcache, a failed send) stays usable.
      setTimeout(function () { delete form.dataset.sent; }, 4000);
    });
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sent]").forEach(function (form) { delete form.dataset.sent; });
    // Back to a page whose photo was being sent: its button works again, nothing is being read.
    document.querySelectorAll("form.busy").forEach(function (form) {
      form.classList.remove("busy");
      form.removeAttribute("aria-busy");
      const reading = form.querySelector(".reading-status");
      if (reading) reading.textContent = "";
    });
  });

  // A form that posts to its own page (a new game, a hand's marks, the game's note and
  // names) keeps nothing of what was typed once the browser shows its "can't be reached"
  // page, and Back then skips past it: it is sent only when the sheet answers, else it
  // stays as typed and says why. (Old browsers without event.submitter send as before.)
  // Said once (an alert; focus stays on the button pressed, so Enter tries again), next to
  // that button, which it describes.
  function sayUnreachable(form, button, text) {
    const next = form.nextElementSibling;
    let said = form.querySelector(".unreachable") || (next && next.classList.contains("unreachable") ? next : null);
    if (!said) {
      said = document.createElement("p");
      said.className = "flash flash-error unreachable";
      said.id = "unreachable-" + Math.random().toString(36).slice(2);
      said.setAttribute("role", "alert");
    }
    const by = button && form.contains(button) ? button : null;
    if (form.classList.contains("typed-score")) {
      // A player's points box and Save sit in one row: the message goes on a line of its own below.
      if (said.parentNode !== form.parentNode) form.parentNode.insertBefore(said, form.nextSibling);
    } else if (by) by.parentNode.insertBefore(said, by); else form.insertBefore(said, form.firstChild);
    said.textContent = text || window.onze.UNREACHABLE;
    if (by) by.setAttribute("aria-describedby", said.id);
  }
  document.querySelectorAll("form[data-keep-if-unreachable]").forEach(function (form) {
    form.addEventListener("submit", async function (event) {
      if (event.defaultPrevented || !("submitter" in event)) return;
      event.preventDefault();
      const button = event.submitter;
      if (await window.onze.isReachable(form.action)) {
        let carried = form.querySelector("input.carried-button");
        if (carried) carried.remove();   // a button of an earlier try (the page come back to with Back)
        if (button && button.name) {   // form.submit() sends no button: its name and value go along
          carried = document.createElement("input");
          carried.type = "hidden";
          carried.className = "carried-button";
          carried.name = button.name;
          carried.value = button.value;
          form.appendChild(carried);
        }
        // What the page keeps to send first (a hand's page: points typed and not saved).
        if (form.onzeBeforeSend && !(await form.onzeBeforeSend())) {
          delete form.dataset.sent;
          return;
        }
        form.submit();
        return;
      }
      delete form.dataset.sent;
      sayUnreachable(form, button);
    });
  });

  // Who went out, the splash and the note are one form among the players' own on a hand's
  // page: a tap on a player's Save, Clear or "Photo / cards" must not drop a choice made
  // above and not saved yet. It is saved first; where that fails, the hand's form is sent
  // as it is, and its page says why with the choice kept. So are the points typed in other
  // players' boxes and not saved: a family types every number, then taps one Save.
  const handForm = document.getElementById("hand-form");
  const typedForms = Array.prototype.slice.call(document.querySelectorAll("form.typed-score"));
  if (handForm || typedForms.length) {
    let unsaved = false;
    if (handForm) {
      handForm.addEventListener("input", function () { unsaved = true; });
      handForm.addEventListener("change", function () { unsaved = true; });
      handForm.addEventListener("submit", function (event) { if (!event.defaultPrevented) unsaved = false; });
    }
    const boxOf = function (form) { return form.querySelector("input[name=points]"); };
    const playerOf = function (form) { return form.querySelector("input[name=player_id]").value; };
    const isTyped = function (form) { return Boolean(form && form.classList.contains("typed-score")); };
    const buttonOf = function (form) { return form ? form.querySelector("button[type=submit], button:not([type])") : null; };

    // One form sent in the background, its redirect not followed (the page it leads to would
    // take the messages and marks meant for the page shown next): "saved", "refused" (its
    // page says why), "unreachable" (no answer: nothing was sent) or "late" (none in 15 s: a
    // phone that left the Wi-Fi mid-send must not leave the page waiting for ever; it may have
    // been saved, and sent again the same score is no change).
    const send = async function (form) {
      try {
        const response = await window.onze.fetchWithin(form.action, { method: "POST", body: new FormData(form),
                                                                       credentials: "same-origin", redirect: "manual" }, 15000);
        return response.type === "opaqueredirect" || response.ok ? "saved" : "refused";
      } catch (error) {
        return error.late ? "late" : "unreachable";
      }
    };
    // After each of this page's own saves in the background, the game as it is now, read once:
    // the live sheet counts this save in (it tells another phone's saves by the game's count of
    // changes), and no more than this page's own since the round began (another phone's save
    // meanwhile is still told); a player's points form takes its score's new version (changed
    // once more and sent, it would be told "saved from this phone since this page was opened").
    let countAtStart = null;
    let ownSaves = 0;
    const afterOwnSave = async function (form) {
      ownSaves += 1;
      const live = document.getElementById("live");
      if (live && countAtStart === null) countAtStart = Number(live.dataset.changes);
      const where = form.action.match(/^(.*)\/games\/(\d+)\/hands\/(\d+)(?:\/players\/(\d+))?/);
      if (!where) return;
      try {
        const response = await fetch(where[1] + "/api/games/" + where[2], { credentials: "same-origin", cache: "no-store" });
        if (!response.ok) return;
        const game = await response.json();
        if (live) live.dataset.changes = String(Math.min(game.changes, countAtStart + ownSaves));
        if (isTyped(form)) {
          const score = game.hands[Number(where[3]) - 1].scores[Number(where[4]) - 1];
          if (score && score.version) form.querySelector("input[name=was]").value = score.version;
        }
      } catch (error) { /* the live sheet asks again itself; sent again, a score is told as changed */ }
    };
    const saveHandFirst = async function () {
      const outcome = await send(handForm);
      if (outcome === "saved") {
        unsaved = false;
        await afterOwnSave(handForm);
      }
      return outcome;
    };

    // The boxes holding points typed and not saved, but for those of the player whose form
    // ``except`` is (a Clear or an Undo of that player is not a Save of what was typed there)
    // and those ``tried`` in this round already with the points they hold now.
    const typedLeft = function (except, tried) {
      const own = except ? except.closest("li") : null;
      return typedForms.filter(function (form) {
        const box = boxOf(form);
        return form !== except && !(own && form.closest("li") === own) && !(tried && tried.get(form) === box.value) &&
          box.value.trim() !== "" && box.value !== box.defaultValue;
      });
    };
    // Each sent by its own form, one after another: {saved: how many, refused: [forms],
    // failed: "unreachable" or "late" where the sheet stopped answering}. One that asks first
    // (it replaces cards) is asked here, unless the player said yes already (the form tapped),
    // and left out if the answer is no.
    const saveTyped = async function (forms) {
      const result = { saved: 0, refused: [], failed: null };
      for (let i = 0; i < forms.length; i++) {
        const form = forms[i];
        if (form.dataset.confirm && !form.dataset.confirmed && !window.confirm(form.dataset.confirm)) continue;
        form.dataset.confirmed = "1";
        const box = boxOf(form);
        const sent = box.value;
        const outcome = await send(form);
        if (outcome === "unreachable" || outcome === "late") { result.failed = outcome; break; }
        if (outcome === "refused") { result.refused.push(form); continue; }
        box.defaultValue = sent;   // saved: not sent again
        result.saved += 1;
        await afterOwnSave(form);
      }
      return result;
    };
    // Every box typed and not saved, those typed or changed while the round runs too (a tap on
    // another Save meanwhile is taken in: its box is saved in the same round).
    const saveAllTyped = async function (except) {
      const all = { saved: 0, refused: [], failed: null };
      const tried = new Map();
      for (let left = typedLeft(except, tried); left.length; left = typedLeft(except, tried)) {
        left.forEach(function (form) { tried.set(form, boxOf(form).value); });
        const round = await saveTyped(left);
        all.saved += round.saved;
        // A box refused and changed since is tried again: its last answer is what counts.
        all.refused = all.refused.filter(function (form) { return left.indexOf(form) < 0; }).concat(round.refused);
        if (round.failed) { all.failed = round.failed; break; }
      }
      return all;
    };

    // Points refused (too many for the hand, changed on another phone) go back into their
    // boxes on the page that says why, which is drawn for the first of them only, with the
    // score each was typed over (saved again, a score changed on another phone meanwhile is
    // told, not overwritten); kept by the hand (that page is drawn at its own form's address),
    // for a minute (a page that never came leaves none to come back later).
    const keptKey = "onze-typed:" + (handForm ? handForm.action : window.location.pathname);
    const keepTyped = function (forms) {
      if (!forms.length) return;
      const kept = { at: Date.now(), points: {} };
      forms.forEach(function (form) {
        kept.points[playerOf(form)] = { points: boxOf(form).value, was: form.querySelector("input[name=was]").value };
      });
      try { window.sessionStorage.setItem(keptKey, JSON.stringify(kept)); } catch (error) { /* not kept */ }
    };
    try {
      const kept = JSON.parse(window.sessionStorage.getItem(keptKey) || "null");
      window.sessionStorage.removeItem(keptKey);
      if (kept && kept.points && Date.now() - kept.at < 60000) {
        typedForms.forEach(function (form) {
          const box = boxOf(form);
          const back = kept.points[playerOf(form)];
          if (back && box.value === box.defaultValue && box.value !== back.points) {
            box.value = back.points;
            form.querySelector("input[name=was]").value = back.was;
            const live = document.getElementById("live");
            if (live) live.dataset.typed = "1";   // typed, not saved: the live sheet does not reload it away
            sayUnreachable(form, buttonOf(form), "Not saved: refused with another player's points. " +
              "Save it again to see why.");
          }
        });
      }
    } catch (error) { /* storage refused or spoilt: nothing to put back */ }

    // The first refused form is sent as it was, for its page to say why; the others' points
    // come back into their boxes there. The points of a Save tapped are saved first.
    const showRefused = async function (refused, form) {
      if (isTyped(form) && refused.indexOf(form) < 0) refused = refused.concat((await saveTyped([form])).refused);
      keepTyped(refused.slice(1));
      return function () { refused[0].submit(); };
    };
    const cantReach = function (form, saved, failed) {
      if (form) delete form.dataset.sent;
      const done = saved ? " once " + saved + (saved === 1 ? " player's points were" : " players' points were") +
        " saved" : "";
      const text = failed === "late"
        ? "The score sheet did not answer in time (is the Wi-Fi weak?)" + done + ": the last points sent may or " +
          "may not be saved, and are still here. Try again: the same points saved twice change nothing."
        : saved ? "The score sheet stopped answering (is the laptop asleep, or the Wi-Fi off?)" + done +
          ": the rest are still here, not sent. Try again once it is back." : "";
      sayUnreachable(form || handForm || typedForms[0], buttonOf(form), text);
    };

    // One round of saving at a time: a Save tapped meanwhile is saved in it, a Clear or an
    // Undo is sent after it; leaving the page meanwhile asks first; the live sheet waits.
    let saving = false;
    let queued = [];
    window.addEventListener("beforeunload", function (event) {
      if (saving) { event.preventDefault(); event.returnValue = ""; }
    });
    // ``work`` returns what to do once the round is over (leave the page), or nothing.
    const whileSaving = async function (tapped, work) {
      saving = true;
      queued = [];
      countAtStart = null;
      ownSaves = 0;
      document.documentElement.dataset.saving = "1";
      const status = document.createElement("p");
      status.className = "meta saving-status";
      status.setAttribute("role", "status");
      const where = tapped && tapped.closest(".ps-actions") ? tapped.closest(".ps-actions") : null;
      if (where) where.appendChild(status);
      else if (tapped) tapped.parentNode.insertBefore(status, tapped.nextSibling);
      status.textContent = "Saving the points typed for the other players first\u2026";
      let then = null;
      try {
        then = await work();
      } finally {
        saving = false;
        delete document.documentElement.dataset.saving;
        status.remove();
      }
      if (then) then();   // after the round: leaving now asks nothing
    };
    // A Clear or an Undo tapped while the round ran: sent now, before the page is left; one
    // refused is shown instead (its page says why).
    const sendQueued = async function () {
      for (let i = 0; i < queued.length; i++) {
        const outcome = await send(queued[i]);
        const form = queued[i];
        if (outcome === "saved") await afterOwnSave(form);
        else if (outcome === "refused") return function () { form.submit(); };
        else { cantReach(form, 0, outcome); return null; }
      }
      return undefined;
    };
    // Before ``form`` is sent (null: a link followed): the players' points, then the hand's
    // choice; ``go`` sends it once they are saved.
    const saveWhatIsLeft = function (form, tapped, go) {
      return whileSaving(tapped, async function () {
        const typed = await saveAllTyped(form);
        if (typed.failed) { cantReach(form, typed.saved, typed.failed); return null; }
        if (handForm && unsaved) {
          const outcome = await saveHandFirst();
          if (outcome === "unreachable" || outcome === "late") { cantReach(form, typed.saved, outcome); return null; }
          if (outcome === "refused") {   // its page says why, with the choice kept
            let refused = typed.refused;
            if (isTyped(form)) refused = refused.concat((await saveTyped([form])).refused);
            keepTyped(refused);
            return function () { handForm.submit(); };
          }
        }
        if (typed.refused.length) return showRefused(typed.refused, form);
        const after = await sendQueued();
        return after === undefined ? go : after;
      });
    };
    if (handForm) {
      // The hand's own form, sent by its keep-if-unreachable step once the sheet answers.
      handForm.onzeBeforeSend = async function () {
        if (saving) return false;
        let sendIt = false;
        await whileSaving(buttonOf(handForm), async function () {
          const typed = await saveAllTyped(null);
          if (typed.failed) { unsaved = true; cantReach(handForm, typed.saved, typed.failed); return null; }
          if (!typed.refused.length) { sendIt = true; return null; }
          // A box refused: the hand's choice is saved here, and the page that says why comes next
          // (where the hand's own form is refused too, its page, with the boxes' points back).
          const outcome = await saveHandFirst();
          if (outcome === "unreachable" || outcome === "late") { unsaved = true; cantReach(handForm, typed.saved, outcome); }
          else if (outcome === "saved") return showRefused(typed.refused, null);
          else { keepTyped(typed.refused); sendIt = true; }
          return null;
        });
        return sendIt;
      };
      handForm.addEventListener("submit", async function (event) {   // a browser that step leaves alone
        if (event.defaultPrevented || !typedLeft(null).length) return;
        event.preventDefault();
        if (await handForm.onzeBeforeSend()) handForm.submit();
      });
    }
    document.querySelectorAll("main form[method=post]").forEach(function (form) {
      if (form === handForm) return;
      form.addEventListener("submit", function (event) {
        if (event.defaultPrevented) return;
        if (saving) {
          event.preventDefault();
          delete form.dataset.sent;
          // Its points are saved in the round (asked about already, where it asks); a Clear
          // or an Undo is sent after it.
          if (isTyped(form)) form.dataset.confirmed = "1";
          else if (queued.indexOf(form) < 0) queued.push(form);
          return;
        }
        delete form.dataset.confirmed;
        if (!((handForm && unsaved) || typedLeft(form).length)) return;
        event.preventDefault();
        if (isTyped(form)) form.dataset.confirmed = "1";   // the form tapped: asked already, where it asks
        saveWhatIsLeft(form, event.submitter || buttonOf(form), function () { form.submit(); });
      });
    });
    document.querySelectorAll("main a[href]").forEach(function (link) {
      if (link.closest("#live")) return;   // "Show them" asks itself whether to lose what is typed
      link.addEventListener("click", function (event) {
        if (event.defaultPrevented || link.target || event.ctrlKey || event.metaKey) return;
        if (saving) { event.preventDefault(); return; }
        if (!((handForm && unsaved) || typedLeft(null).length)) return;
        event.preventDefault();
        saveWhatIsLeft(null, link, function () { window.location.href = link.href; });
      });
    });
  }

  // Choosing a photo reads it right away (one tap less at the table).
  document.querySelectorAll(".upload-form input[type=file], input[type=file][data-read-on-choose]").forEach(function (input) {
    input.addEventListener("change", function () {
      const form = input.form;
      const limit = Number(form.dataset.maxBytes || 0);
      const error = form.querySelector(".upload-error");
      // Refuse an oversized photo here: no need to send 25 MB over the home Wi-Fi first.
      if (input.files && input.files.length && limit && input.files[0].size > limit) {
        error.textContent = "The upload is too large: the limit is " + Math.round(limit / 1048576) + " MB.";
        error.hidden = false;
        describeProblem(input, error, true);
        input.value = "";
        return;
      }
      if (error) { error.hidden = true; describeProblem(input, error, false); }
      if (input.files && input.files.length) {
        // Send the card list as it stands: a photo that fails to read must not lose it.
        const list = document.querySelector("#score-form [name=cards]");
        const keep = form.querySelector("[name=cards_text]");
        if (list && keep) keep.value = list.value;
        form.classList.add("busy");
        form.setAttribute("aria-busy", "true");
        // Said as well as shown (the words drawn by CSS are not read out): a phone on the
        // home Wi-Fi may take seconds to send the photo and have it read.
        let reading = form.querySelector(".reading-status");
        if (!reading) {
          reading = document.createElement("p");
          reading.className = "visually-hidden reading-status";
          reading.setAttribute("role", "status");
          form.appendChild(reading);
        }
        setTimeout(function () { reading.textContent = "Reading the cards…"; }, 50);
        form.submit();
      }
    });
  });

  // A page of the sheet shows what another phone saves: it asks every few seconds how many
  // times the game has changed, and reloads when that grows, unless something is typed here
  // that a reload would lose; then it says so and waits for a tap.
  const live = document.getElementById("live");
  const pollMs = live ? Number(live.dataset.pollMs) : 0;
  // Where a keyboard or a screen reader's user was when the page reloaded itself for another
  // phone's change: focus goes back there and the change is said (it went to the page's top,
  // unsaid, with every score the others saved).
  const placeKey = "onze-live-place:" + window.location.pathname;
  const quote = function (value) { return "\"" + CSS.escape(value) + "\""; };
  // A selector that finds the element's kind again after the reload, and which of those it was.
  const selectorOf = function (element) {
    if (element.id) return "#" + CSS.escape(element.id);
    // A link by where it goes: its words may hold the points another phone just changed.
    if (element.tagName === "A" && element.getAttribute("href")) return "main a[href=" + quote(element.getAttribute("href")) + "]";
    const tag = element.tagName.toLowerCase();
    const action = element.form && element.form.getAttribute("action");
    if (element.name && action) {
      // A radio or a box by its value too: the name alone is the group's first.
      const value = (element.type === "radio" || element.type === "checkbox") ? "[value=" + quote(element.value) + "]" : "";
      return "form[action=" + quote(action) + "] " + tag + "[name=" + quote(element.name) + "]" + value;
    }
    const label = element.getAttribute("aria-label");
    if (label) return "main " + tag + "[aria-label=" + quote(label) + "]";
    return action ? "form[action=" + quote(action) + "] " + tag : "main " + tag;   // "Save hand", "Save note"
  };
  const placeOf = function (element) {
    if (!element || element === document.body || !element.closest("main")) return "";
    const selector = selectorOf(element);
    return JSON.stringify({ selector: selector,
                            n: Array.prototype.indexOf.call(document.querySelectorAll(selector), element) });
  };
  const findPlace = function (place) {
    const where = JSON.parse(place);
    return document.querySelectorAll(where.selector)[Math.max(where.n, 0)] || null;
  };
  if (live) {
    try {
      const place = window.sessionStorage.getItem(placeKey);
      if (place !== null) {
        window.sessionStorage.removeItem(placeKey);
        const again = place ? findPlace(place) : null;
        if (again) again.focus({ preventScroll: true });
        // Shown empty first, then said: a status region's words are read when they change.
        live.querySelector(".live-text").textContent = "";
        live.querySelector("[data-live-show]").hidden = true;
        live.hidden = false;
        setTimeout(function () {
          live.querySelector(".live-text").textContent = "Updated with what was saved on another device.";
        }, 100);
        setTimeout(function () {
          if (live.querySelector(".live-text").textContent.indexOf("Updated") === 0) live.hidden = true;
        }, 8000);
      }
    } catch (error) { /* storage refused: the page as it opens */ }
  }
  if (live && pollMs > 0) {
    let typed = Boolean(live.dataset.typed);
    let gone = false;
    // Off, another phone's save is said with "Show them" rather than shown by a reload.
    const autoKey = "onze-live-auto";
    const autoBox = document.querySelector("[data-live-auto]");
    let auto = true;
    try { auto = window.localStorage.getItem(autoKey) !== "0"; } catch (error) { /* storage refused: on */ }
    if (autoBox) {
      autoBox.checked = auto;
      autoBox.closest(".live-switch").hidden = false;
      autoBox.addEventListener("change", function () {
        auto = autoBox.checked;
        try { window.localStorage.setItem(autoKey, auto ? "1" : "0"); } catch (error) { /* this page only */ }
      });
    }
    document.querySelectorAll("main form").forEach(function (form) {
      form.addEventListener("input", function () { typed = true; });
    });
    // Showing the new changes reloads the page: what is typed here is asked about first.
    live.querySelector("[data-live-show]").addEventListener("click", function (event) {
      if (typed && !window.confirm("What you typed on this page is not saved yet, and showing the changes loses it. Show them anyway?")) {
        event.preventDefault();
      }
    });
    const say = function (words, canShow) {
      live.querySelector(".live-text").textContent = words;
      live.querySelector("[data-live-show]").hidden = !canShow;
      live.querySelector("[data-live-history]").hidden = !gone || canShow;
      live.hidden = false;
    };
    const check = async function () {
      if (document.visibilityState === "visible" && !document.documentElement.dataset.saving) {
        try {
          const response = await fetch(live.dataset.changesUrl, { credentials: "same-origin", cache: "no-store" });
          if (response.status === 404) {
            // Deleted elsewhere: said, and still asked after, as an Undo there brings it back.
            gone = true;
            say("This game was deleted on another device.", false);
          }
          const data = response.ok ? await response.json() : null;
          if (data && (gone || data.changes !== Number(live.dataset.changes))) {
            if (auto && !typed && !document.querySelector("form[data-sent]")) {
              try { window.sessionStorage.setItem(placeKey, placeOf(document.activeElement)); } catch (error) { /* not kept */ }
              window.location.reload();
            } else {
              say(gone ? "This game was brought back on another device." : "Something was saved on another device (a score, a name or a note).", true);
            }
            return;
          }
        } catch (error) {
          // The server asleep or the Wi-Fi gone for a moment: ask again later.
        }
      }
      setTimeout(check, pollMs);
    };
    setTimeout(check, pollMs);
  }

  // New game: the first-dealer list shows the names as they are typed.
  const form = document.getElementById("new-game");
  if (form) {
    const dealer = document.getElementById("first-dealer");
    const slots = form.querySelectorAll(".player-slot input");
    const refresh = function () {
      slots.forEach(function (input, i) {
        const option = dealer.options[i];
        const name = input.value.trim();
        option.textContent = "Player " + (i + 1) + (name ? ": " + name : "");
        option.disabled = !name;
      });
    };
    slots.forEach(function (input) { input.addEventListener("input", refresh); });
    refresh();
    // The chosen variant's rules in one line under the list (titles alone are long on a phone).
    const variant = document.getElementById("variant");
    const summary = document.getElementById("variant-summary");
    if (variant && summary) {
      variant.addEventListener("change", function () {
        summary.textContent = variant.options[variant.selectedIndex].dataset.summary || "";
      });
    }
  }
});
