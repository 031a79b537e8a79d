// The judging page: one keystroke saves a grade and shows the next document. Saves go out one at a
// time in order, are retried until the server has them, and wait in localStorage meanwhile, so a
// judgment given is never lost. The document is always inserted as text, never as HTML.
(function () {
  "use strict";

  const IDLE_MS = 60000; // a minute without a key, a click, a move or a scroll: the assessor is away
  const CANT_KEY = "x";
  const S = JSON.parse(document.getElementById("assess-state").textContent);
  const items = S.items;
  const $ = (id) => document.getElementById(id);
  const el = {
    doc: $("doc"), end: $("end"), endTitle: $("end-title"), endText: $("end-text"),
    panel: $("doc-panel"), docno: $("doc-docno"), title: $("doc-title"), text: $("doc-text"),
    form: $("judge-form"), posInput: $("judge-position"), comment: $("comment"), highlight: $("highlight"),
    save: $("save-state"), help: $("help"), where: $("where"),
    judged: $("progress-judged"), total: $("progress-total"), bar: $("progress-bar"),
    prev: $("prev-link"), next: $("next-link"), queueNote: $("queue-note"), nextForm: $("next-form"),
    nextAssignment: $("next-assignment"),
  };
  const buttons = Array.from(el.form.querySelectorAll("button.grade"));
  const gradeKeys = new Map(S.scale.map((g) => [g.key, g.value]));
  const storeKey = "workbench.assess." + S.assignment;

  let cur = S.index;
  const docs = new Map(); // position -> {title, text, stored}
  const loading = new Map(); // position -> Promise
  if (cur < items.length) {
    docs.set(items[cur].position, {
      title: el.title.textContent,
      text: el.text.querySelector(".missing") ? "" : el.text.textContent,
      stored: !el.text.querySelector(".missing"),
      marks: S.marks || [],
    });
  }

  // ------------------------------------------------------------------ active time (idle excluded)
  const active = new Map(); // position -> milliseconds not yet sent
  let visible = document.visibilityState === "visible";
  let lastActivity = performance.now();
  let lastTick = lastActivity;

  function account() {
    const now = performance.now();
    if (visible && cur < items.length) {
      const until = Math.min(now, lastActivity + IDLE_MS);
      if (until > lastTick) {
        const p = items[cur].position;
        active.set(p, (active.get(p) || 0) + until - lastTick);
      }
    }
    lastTick = now;
  }
  function activity() {
    account();
    lastActivity = performance.now();
  }
  function takeActive(position) {
    account();
    const ms = Math.round(active.get(position) || 0);
    active.delete(position);
    return ms;
  }
  ["keydown", "mousedown", "mousemove", "wheel", "touchstart", "scroll"].forEach((type) =>
    document.addEventListener(type, activity, { capture: true, passive: true }));
  document.addEventListener("visibilitychange", () => {
    account();
    visible = document.visibilityState === "visible";
    lastActivity = lastTick = performance.now();
  });
  setInterval(account, 5000);

  // ------------------------------------------------------------------------------- saving
  let pending = []; // saves not yet confirmed, oldest first; pending[0] may be in flight
  let inflight = false;
  let timer = null;
  let failures = 0;
  let lastError = "";
  let refusal = "";

  function persist() {
    try {
      if (pending.length) localStorage.setItem(storeKey, JSON.stringify(pending));
      else localStorage.removeItem(storeKey);
    } catch (e) { /* storage full or disabled: the in-memory queue still retries */ }
  }
  function csrfToken() {
    const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : el.form.querySelector("[name=csrfmiddlewaretoken]").value;
  }
  function byDocno(docno) {
    return items.find((i) => i.docno === docno);
  }

  function save(it, ahead) {
    refusal = "";
    const s = {
      position: it.position, docno: it.docno, grade: it.cant_judge ? null : it.grade,
      cant_judge: it.cant_judge, comment: it.comment, active_ms: takeActive(it.position),
    };
    if (ahead) s.document = ahead; // the save's answer brings this document's text along
    pending.push(s);
    it.unsaved = true;
    persist();
    pump();
  }

  // One request at a time, in order: a save never races a prefetch for the database, and the
  // server sees an assessor's requests in the order they were made.
  let lane = Promise.resolve();
  function request(url, options) {
    const run = () => fetch(url, Object.assign({ credentials: "same-origin" }, options));
    const next = lane.then(run, run);
    lane = next.catch(() => {});
    return next;
  }

  async function send(s) {
    let response;
    try {
      response = await request(S.urls.judge, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(s),
      });
    } catch (e) {
      return { retry: "no connection" };
    }
    let body = null;
    try { body = await response.json(); } catch (e) { /* not JSON: an error page */ }
    if (response.ok) return { body: body };
    if (response.status === 400 || response.status === 404) {
      const reasons = body && (body.errors || (body.detail ? [body.detail] : null));
      return { refused: reasons ? reasons.join("; ") : "refused (" + response.status + ")" };
    }
    if (response.status === 401 || response.status === 403) return { retry: "your session ended: log in again in another tab" };
    return { retry: "server error " + response.status };
  }

  async function pump() {
    if (inflight || timer || !pending.length) { status(); return; }
    inflight = true;
    status();
    const s = pending[0];
    const result = await send(s);
    inflight = false;
    if (result.retry) {
      failures += 1;
      lastError = result.retry;
      timer = setTimeout(() => { timer = null; pump(); }, Math.min(30000, 1000 * 2 ** Math.min(failures - 1, 5)));
    } else {
      pending.shift();
      failures = 0;
      if (s.document) delivered(s.document, result.body ? result.body.document : null);
      if (result.body) saved(s, result.body); else refused(s, result.refused);
      if (leaving && !pending.length) location.assign(el.nextAssignment.href);
    }
    persist();
    pump();
  }

  // a queue's answer (to a save, or to asking it): its next document, or that it is done;
  // true when the page moved on to show it
  function advance(body) {
    S.done = body.done;
    const atEnd = cur >= items.length;
    if (body.next) {
      let index = items.findIndex((i) => i.position === body.next.position);
      if (index < 0) {
        items.push({ position: body.next.position, docno: body.next.docno, grade: null, cant_judge: false, comment: "", judged: false });
        index = items.length - 1;
      }
      if (atEnd) { go(index); return true; }
    } else if (atEnd) {
      show();
      return true;
    }
    return false;
  }

  function saved(s, body) {
    const it = byDocno(s.docno);
    if (it && !pending.some((p) => p.docno === s.docno)) it.unsaved = false;
    if (body.progress) S.progress = body.progress;
    if (S.queue && advance(body)) return;
    paintScale();
    paintProgress();
  }

  // a queue assignment with nothing to judge whose queue was never asked (dealt before saves asked
  // it): ask now, with a POST (opening the page only reads)
  function deal() {
    request(S.urls.next, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    })
      .then((r) => (r.ok ? r.json() : null))
      .then((body) => {
        if (!body) return;
        if (el.nextForm) el.nextForm.hidden = true;
        if (body.progress) S.progress = body.progress;
        if (!advance(body)) paintProgress();
      })
      .catch(() => {});
  }

  function refused(s, reason) {
    refusal = "document " + s.docno + ": " + reason;
    // the page's idea of the judgments may be wrong now: take the server's
    request(S.urls.state, { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((fresh) => {
        if (!fresh) return;
        for (const f of fresh.items) {
          const it = items.find((i) => i.position === f.position);
          if (it && !pending.some((p) => p.docno === it.docno)) Object.assign(it, f, { unsaved: false });
        }
        paintScale();
        paintProgress();
      })
      .catch(() => {});
  }

  function status() {
    const waiting = keys.filter((k) => !k.move).length;
    const n = pending.length + waiting;
    let state = "saved";
    let text = "All judgments saved";
    if (waiting && !failures) {
      state = "saving";
      text = waiting + " grade" + (waiting === 1 ? "" : "s") + " waiting for the document to load…";
    } else if (n && failures) {
      state = "retrying";
      text = n + " not saved yet (" + lastError + "): retrying…";
    } else if (n) {
      state = "saving";
      text = "Saving…";
    } else if (refusal) {
      state = "error";
      text = "Not saved: " + refusal;
    } else if (dropped) {
      state = "error";
      text = "Not saved: " + dropped;
    }
    el.save.dataset.state = state;
    el.save.dataset.pending = String(n);
    el.save.textContent = text;
  }

  // replay what an earlier visit could not save (the tab was closed while offline)
  try {
    const stored = JSON.parse(localStorage.getItem(storeKey) || "[]");
    for (const s of stored) {
      const it = byDocno(s.docno);
      if (!it) continue;
      Object.assign(it, { grade: s.grade, cant_judge: s.cant_judge, comment: s.comment, judged: true, unsaved: true });
      pending.push(s);
    }
  } catch (e) { pending = []; }

  window.addEventListener("online", () => {
    if (timer) { clearTimeout(timer); timer = null; }
    pump();
  });
  window.addEventListener("beforeunload", (e) => {
    leave();
    if (pending.length) {
      persist();
      e.preventDefault();
      e.returnValue = "";
    }
  });

  // ---------------------------------------------------------------------------- documents
  // Reading ahead rides on the saves: a judgment's save asks for the first of the next two
  // documents the page has not got, so that in a run of judgments each one is a single request and
  // the next document is already on hand when its key is pressed. A save that does not bring it
  // (refused, or an answer without it) leaves it to an ordinary fetch.
  const carried = new Map(); // position -> {resolve, reject} of the save bringing it
  function carry(position) {
    let settle = null;
    const promise = new Promise((resolve, reject) => { settle = { resolve: resolve, reject: reject }; })
      .finally(() => loading.delete(position));
    promise.catch(() => {});
    carried.set(position, settle);
    loading.set(position, promise);
  }
  function delivered(position, d) {
    if (d && d.position === position) {
      docs.set(position, { title: d.title, text: d.text, stored: d.stored, marks: d.marks || [] });
    }
    const settle = carried.get(position);
    if (!settle) return;
    carried.delete(position);
    if (docs.has(position)) settle.resolve(docs.get(position)); else settle.reject(new Error("not carried"));
  }
  function readAhead() {
    for (const i of [cur + 1, cur + 2]) {
      if (i >= items.length) break;
      const p = items[i].position;
      if (!docs.has(p) && !loading.has(p)) { carry(p); return p; }
    }
    return null;
  }

  function load(position, attempt) {
    if (docs.has(position)) return Promise.resolve(docs.get(position));
    if (!loading.has(position)) {
      const fetched = request(S.urls.document + position + "/", { headers: { Accept: "application/json" } })
        .then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then((d) => { docs.set(position, { title: d.title, text: d.text, stored: d.stored, marks: d.marks || [] }); return docs.get(position); })
        .finally(() => loading.delete(position));
      loading.set(position, fetched);
    }
    const tries = attempt || 0;
    // the document on the screen is fetched again until it arrives (a dropped connection, a restart)
    return loading.get(position).catch((err) => {
      if (tries >= 5 || cur >= items.length || items[cur].position !== position) throw err;
      return new Promise((resolve) => setTimeout(resolve, 500 * 2 ** tries)).then(() => load(position, tries + 1));
    });
  }
  function prefetch() {
    for (const i of [cur + 1, cur - 1]) { // one ahead: the saves bring the one after (readAhead)
      if (i >= 0 && i < items.length) load(items[i].position).catch(() => {});
    }
  }

  function escapeRegExp(s) {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  function termPattern(marks) {
    const topic = marks.map(escapeRegExp);
    const mine = el.highlight.value.toLowerCase().split(/[\s,;]+/).filter((w) => w.length >= 2).map(escapeRegExp);
    if (!topic.length && !mine.length) return null;
    const never = "(?!)";
    const group = (words) => (words.length ? words.join("|") : never);
    // the server lists this document's forms of the topic's words (a Snowball stemmer's matches):
    // whole words; the words typed here mark every word they start
    const W = "[\\p{L}\\p{N}]";
    return new RegExp("(?<!" + W + ")(?:(" + group(topic) + ")(?!" + W + ")|(?:" + group(mine) + ")" + W + "*)", "giu");
  }
  function paintText(text, marks) {
    const out = document.createDocumentFragment();
    const pattern = termPattern(marks);
    let last = 0;
    if (pattern) {
      for (const m of text.matchAll(pattern)) {
        if (!m[0]) continue;
        if (m.index > last) out.append(text.slice(last, m.index));
        const mark = document.createElement("mark");
        mark.className = m[1] !== undefined ? "t" : "u";
        mark.textContent = m[0];
        out.append(mark);
        last = m.index + m[0].length;
      }
    }
    out.append(text.slice(last));
    el.text.replaceChildren(out);
  }
  function paintDocument() {
    if (cur >= items.length) return;
    const d = docs.get(items[cur].position);
    el.panel.classList.toggle("loading", !d);
    if (!d) return;
    el.title.textContent = d.title;
    if (d.stored) {
      paintText(d.text, d.marks);
    } else {
      const missing = document.createElement("em");
      missing.className = "missing";
      missing.textContent = "The text of this document is not stored: tell the campaign's organizer, or press x (can't judge).";
      el.text.replaceChildren(missing);
    }
  }

  // ------------------------------------------------------------------------------- painting
  function paintScale() {
    const it = cur < items.length ? items[cur] : null;
    for (const b of buttons) {
      b.disabled = !it;
      const mine = it && it.judged && (b.dataset.cant ? it.cant_judge : !it.cant_judge && Number(b.dataset.grade) === it.grade);
      b.classList.toggle("current", Boolean(mine));
      b.classList.toggle("unsaved", Boolean(mine && it.unsaved));
      b.setAttribute("aria-pressed", mine ? "true" : "false");
    }
  }
  function paintProgress() {
    const judged = items.filter((i) => i.judged).length;
    const total = S.queue ? Math.max(S.progress.total, items.length) : items.length;
    el.judged.textContent = judged;
    el.total.textContent = total;
    el.bar.setAttribute("width", (total ? Math.round((100 * judged) / total) : 100) + "%");
    el.where.textContent = where();
  }
  // the position line (as judging.assess.selectors.where_text words it for the first paint)
  function where() {
    const n = items.length;
    if (cur < n) return "document " + (cur + 1) + " of " + n;
    if (!n) return "no document yet";
    const open = items.filter((i) => !i.judged).length;
    return open ? "end of the list: " + open + " of " + n + " unjudged" : "all " + n + " judged";
  }
  function paintEnd() {
    const open = items.filter((i) => !i.judged).length;
    el.endText.replaceChildren();
    if (S.queue && !S.done && !open) {
      el.endTitle.textContent = "Asking for the next document…";
      el.endText.append("It appears as soon as your last judgment is saved.");
    } else if (!open) {
      el.endTitle.textContent = "All documents judged";
      el.endText.append("Thank you: every document of this topic has your judgment. Press ← to go back and revise, or return to your assignments.");
    } else {
      el.endTitle.textContent = "End of the list";
      el.endText.append(open + " document" + (open === 1 ? " is" : "s are") + " still unjudged: press u for the first one.");
    }
  }

  function show() {
    const end = cur >= items.length;
    el.doc.hidden = end;
    el.end.hidden = !end;
    el.prev.hidden = cur <= 0;
    el.next.hidden = end;
    if (end) {
      el.posInput.value = "";
      el.comment.value = "";
      paintEnd();
      history.replaceState(null, "", S.urls.page);
    } else {
      const it = items[cur];
      el.posInput.value = it.position;
      el.docno.textContent = it.docno;
      el.comment.value = it.comment;
      // a queue counts grades only: after "can't judge" it offers the same document again
      el.queueNote.hidden = !(S.queue && !S.done && it.cant_judge && cur === items.length - 1);
      if (!docs.has(it.position)) {
        el.title.textContent = "";
        el.text.textContent = "Loading…";
        load(it.position).then(() => { if (items[cur] === it) { paintDocument(); drain(); } }, () => {
          if (items[cur] !== it) return;
          el.text.textContent = "The document could not be loaded: check the connection, then go back and forth to retry.";
          if (keys.length) {  // said, never silent: the grades typed for it are not applied
            dropped = keys.filter((k) => !k.move).length + " grade(s) typed for document " + it.docno + " (it could not be loaded)";
            keys.length = 0;
            status();
          }
        });
      }
      paintDocument();
      history.replaceState(null, "", S.urls.page + "?item=" + it.position);
    }
    el.panel.scrollTop = 0;
    paintScale();
    paintProgress();
    prefetch();
    drain();
  }

  // keep a comment typed on a document that is left without a new grade
  function leave() {
    if (cur >= items.length) return;
    const it = items[cur];
    const comment = el.comment.value.trim();
    if (comment === it.comment) return;
    it.comment = comment;
    if (it.judged) save(it);
  }

  function go(index) {
    account();
    leave();
    cur = Math.max(0, Math.min(index, items.length));
    show();
  }

  // Keys given before their document is on the screen (it is still loading, or a queue has not
  // dealt it yet) wait here in order and are applied, one per document, as each one arrives: a
  // document is never judged unseen, and a key is never dropped. Moves typed behind waiting grades
  // wait with them, so every grade lands on the document it was typed for.
  const keys = []; // {grade, cant} or {move: index function}
  let draining = false;
  let dropped = "";

  function judgeNow(grade, cant) {
    const it = items[cur];
    Object.assign(it, { grade: cant ? null : grade, cant_judge: cant, judged: true, comment: el.comment.value.trim() });
    save(it, readAhead());
    go(cur + 1);
  }

  function drain() {
    if (draining) return;
    draining = true;
    try {
      while (keys.length) {
        const k = keys[0];
        if (k.move) {
          keys.shift();
          go(k.move());
          continue;
        }
        if (cur >= items.length) {
          if (S.queue && !S.done) break; // the queue deals the next document with the last save's answer
          dropped = keys.length + " key" + (keys.length === 1 ? "" : "s") + " after the last document: nothing to judge";
          keys.length = 0;
          break;
        }
        if (!docs.has(items[cur].position)) break; // show() drains again once it is loaded
        keys.shift();
        judgeNow(k.grade, k.cant);
      }
    } finally {
      draining = false;
    }
    status();
  }

  function judge(grade, cant) {
    dropped = "";
    keys.push({ grade: grade, cant: cant });
    drain();
  }

  // the next assignment opens once the last saves are in (leaving earlier would ask "leave the page?")
  let leaving = false;
  function nextAssignment() {
    leaving = true;
    if (!pending.length) location.assign(el.nextAssignment.href);
  }

  function move(index) {
    if (keys.length) { keys.push({ move: index }); status(); } else go(index());
  }

  // ------------------------------------------------------------------------------- keyboard
  function openHelp(open) {
    el.help.hidden = !open;
    if (!open) el.panel.focus({ preventScroll: true });
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    const target = e.target;
    if (target === el.comment || target === el.highlight) {
      // typing in a field never judges; Escape (or Enter in the highlight box) gives the keys back
      if (e.key === "Escape" || (e.key === "Enter" && target === el.highlight)) {
        e.preventDefault();
        target.blur();
        el.panel.focus({ preventScroll: true });
      }
      return;
    }
    if (!el.help.hidden) {
      if (e.key === "Escape" || e.key === "?" || e.key === "h") { e.preventDefault(); openHelp(false); }
      return;
    }
    if (target instanceof HTMLElement && target.closest("button, a") && (e.key === "Enter" || e.key === " ")) return;
    const grade = gradeKeys.has(e.key) ? gradeKeys.get(e.key) : gradeKeys.get(e.key.toLowerCase());
    if (grade !== undefined) {
      e.preventDefault();
      if (!e.repeat) judge(grade, false);
      return;
    }
    switch (e.key) {
      case CANT_KEY:
      case CANT_KEY.toUpperCase():
        e.preventDefault();
        if (!e.repeat) judge(null, true);
        break;
      case "ArrowRight": case "j": case "n": case "Enter":
        e.preventDefault();
        // past the last document, the same key opens the next assignment
        if (cur >= items.length && !keys.length && el.nextAssignment) nextAssignment();
        else if (e.key !== "Enter") move(() => cur + 1);
        break;
      case "ArrowLeft": case "k": case "p": case "b": case "Backspace":
        e.preventDefault(); move(() => cur - 1); break;
      case "u": {
        e.preventDefault();
        move(() => {
          const open = items.findIndex((i) => !i.judged);
          return open < 0 ? items.length : open;
        });
        break;
      }
      case "c":
        if (cur < items.length) { e.preventDefault(); el.comment.focus(); }
        break;
      case "/": case "f":
        e.preventDefault(); el.highlight.focus(); el.highlight.select(); break;
      case "?": case "h":
        e.preventDefault(); openHelp(true); break;
      default:
    }
  });

  // the mouse works too: the grade buttons and the pager do what their keys do
  el.form.addEventListener("submit", (e) => {
    e.preventDefault();
    const b = e.submitter;
    if (!b) return;
    if (b.dataset.cant) judge(null, true); else judge(Number(b.dataset.grade), false);
    el.panel.focus({ preventScroll: true });
  });
  el.prev.addEventListener("click", (e) => { e.preventDefault(); move(() => cur - 1); });
  el.next.addEventListener("click", (e) => { e.preventDefault(); move(() => cur + 1); });
  el.help.addEventListener("click", (e) => { if (e.target === el.help) openHelp(false); });
  el.highlight.addEventListener("input", paintDocument);

  show();
  el.panel.focus({ preventScroll: true });
  pump();
  if (S.queue && !S.done && !items.some((i) => !i.judged) && !pending.length) deal();
})();
