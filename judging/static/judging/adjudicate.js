// The adjudication page: one keystroke decides the disagreement on the screen and shows the next,
// without a reload. Keys wait in order until their disagreement is on the screen; decisions go to
// the server one at a time, in order, retried until it has them and kept in localStorage meanwhile;
// u undoes the last decision. Without this script the page's forms decide one disagreement per
// page. Texts are always inserted as text, never as HTML.
(function () {
  "use strict";

  const root = document.getElementById("adjudicate");
  const stateNode = document.getElementById("adjudicate-state");
  const form = document.getElementById("decide-form");
  if (!root || !stateNode || !form) return;
  const S = JSON.parse(stateNode.textContent);
  const $ = (id) => document.getElementById(id);
  const el = {
    item: $("adj-item"), end: $("adj-end"), endTitle: $("adj-end-title"), endText: $("adj-end-text"),
    topicNumber: $("adj-topic-number"), docno: $("adj-docno"), distance: $("adj-distance"),
    votes: $("adj-votes"), decision: $("adj-decision"), withdraw: $("withdraw"),
    statementNumber: $("adj-statement-number"), topicTitle: $("adj-topic-title"),
    description: $("adj-description"), descriptionBlock: $("adj-description-block"),
    narrative: $("adj-narrative"), narrativeBlock: $("adj-narrative-block"),
    doc: $("adj-doc"), docTitle: $("adj-doc-title"), docText: $("adj-doc-text"),
    note: $("adj-note"), save: $("save-state"), position: $("adj-position"), count: $("adj-count"),
    prev: $("prev-link"), next: $("next-link"), undo: $("undo-button"), help: $("help"),
    open: $("queue-open"), decided: $("queue-decided"), topicFilter: $("topic-filter"),
  };
  const buttons = Array.from(form.querySelectorAll("button.grade"));
  const gradeKeys = new Map(buttons.map((b) => [b.dataset.key, Number(b.dataset.grade)]));
  const labels = new Map(buttons.map((b) => [Number(b.dataset.grade), b.textContent.replace(b.dataset.key, "").trim()]));
  const storeKey = "workbench.adjudicate." + S.urls.decide + "." + S.me;
  const key = (it) => it.topic + "\u0000" + it.docno;
  if (el.withdraw) el.withdraw.hidden = true; // u undoes; the form is for pages without this script

  const all = S.items; // every disagreement of the view, all topics, in queue order
  const byKey = new Map(all.map((it) => [key(it), it]));
  let filter = S.topic;
  let list = listed();
  let cur = Math.min(S.index, list.length);
  const payloads = new Map(); // item key -> what the page shows of it (the API's item)
  const loading = new Map(); // item key -> Promise of its payload
  const unloadable = new Map(); // item key -> why the server would not show it
  if (S.current) payloads.set(key(S.current), S.current);
  let counts = { open: S.open, decided: S.decided };

  function listed() {
    return filter ? all.filter((it) => it.topic === filter) : all.slice();
  }
  // every change of a disagreement's decision goes through here, so the counts follow
  function setDecision(it, decision) {
    const was = Boolean(it.decision);
    it.decision = decision;
    const p = payloads.get(key(it));
    if (p) p.decision = decision;
    if (was !== Boolean(decision)) {
      counts.open += was ? 1 : -1;
      counts.decided += was ? -1 : 1;
    }
  }

  // ------------------------------------------------------------------------------- requests
  // One request at a time, in order: a decision never overtakes the one before it, nor a read.
  let lane = Promise.resolve();
  function request(url, options) {
    const run = () => fetch(url, Object.assign({ credentials: "same-origin" }, options));
    const next = lane.then(run, run);
    lane = next.catch(() => {});
    return next;
  }
  function csrfToken() {
    const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : form.querySelector("[name=csrfmiddlewaretoken]").value;
  }
  function reasons(body, status) {
    const lines = body && (body.errors || (body.detail ? [body.detail] : null));
    return lines ? lines.join("; ") : "refused (" + status + ")";
  }

  // ------------------------------------------------------------------------------- saving
  // pending: decisions and undos not yet confirmed, oldest first; pending[0] may be in flight.
  // An undo of a decision already sent is a request of its own ("undo": withdraw the decision,
  // or decide the one it replaced again); one not sent yet is simply taken back.
  let pending = [];
  let inflight = null;
  let timer = null;
  let failures = 0;
  let lastError = "";
  let refusal = "";
  let notice = "";
  let seq = Date.now();
  const undos = []; // {op, topic, docno, grade, before}: the decisions u can undo, last on top

  function persist() {
    const stored = pending.map((op) => {
      const copy = Object.assign({}, op);
      delete copy.next_topic; delete copy.next_docno; // a read ahead does not survive a reload
      return copy;
    });
    try {
      if (stored.length) localStorage.setItem(storeKey, JSON.stringify(stored));
      else localStorage.removeItem(storeKey);
    } catch (e) { /* storage full or disabled: the in-memory queue still retries */ }
  }

  function body(op) {
    if (op.kind === "withdraw") return { topic: op.topic, docno: op.docno, grade: op.grade };
    const b = { topic: op.topic, docno: op.docno, grade: op.grade, note: op.note };
    if (op.next_topic !== undefined) { b.next_topic = op.next_topic; b.next_docno = op.next_docno; }
    return b;
  }
  // what an undo sends: its decision withdrawn, or the decision it replaced given again
  function resolve(op) {
    if (op.kind !== "undo") return op;
    const concrete = op.previous
      ? { kind: "decide", topic: op.topic, docno: op.docno, grade: op.previous.grade, note: op.previous.note }
      : { kind: "withdraw", topic: op.topic, docno: op.docno, grade: op.grade };
    return Object.assign(concrete, { id: op.id, attempts: 0 });
  }

  async function send(op) {
    let response;
    try {
      response = await request(op.kind === "withdraw" ? S.urls.withdraw : S.urls.decide, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body(op)),
      });
    } catch (e) {
      return { retry: "no connection" };
    }
    let answer = null;
    try { answer = await response.json(); } catch (e) { /* not JSON: an error page */ }
    if (response.ok) return { body: answer };
    if (response.status === 400 || response.status === 404) return { refused: reasons(answer, response.status) };
    if (response.status === 401 || response.status === 403) return { retry: "your session ended: log in again in another tab" };
    return { retry: "server error " + response.status };
  }

  async function pump() {
    if (inflight || timer || !pending.length) { status(); return; }
    pending[0] = resolve(pending[0]);
    const op = pending[0];
    inflight = op;
    status();
    const result = await send(op);
    inflight = null;
    if (result.retry) {
      failures += 1;
      op.attempts = (op.attempts || 0) + 1;
      lastError = result.retry;
      timer = setTimeout(() => { timer = null; pump(); }, Math.min(30000, 1000 * 2 ** Math.min(failures - 1, 5)));
    } else {
      pending.shift();
      failures = 0;
      if (op.next_topic !== undefined) delivered(op.next_topic + "\u0000" + op.next_docno, result.body ? result.body.item : null);
      if (result.body) confirmed(op, result.body); else refused(op, result.refused);
    }
    persist();
    pump();
  }

  function confirmed(op, answer) {
    const it = byKey.get(key(op));
    // an undo waiting behind this decision restores what the server says it replaced (when the
    // first try answered: a retried one may have replaced itself)
    for (const u of pending) {
      if (u.kind === "undo" && u.of === op.id && !op.attempts) u.previous = answer.previous;
    }
    if (it && !pending.some((p) => key(p) === key(op))) {
      setDecision(it, op.kind === "withdraw" ? null : {
        grade: answer.grade, adjudicator: answer.adjudicator, note: answer.note, decided_at: answer.decided_at,
      });
      if (onScreen(it)) paint();
    }
    status();
  }

  function refused(op, reason) {
    refusal = reason; // the server's sentence names the disagreement
    pending = pending.filter((u) => !(u.kind === "undo" && u.of === op.id)); // nothing to undo
    const it = byKey.get(key(op));
    for (let i = undos.length - 1; i >= 0; i--) {
      if (undos[i].op !== op) continue;
      if (it) setDecision(it, undos[i].before);
      undos.splice(i, 1);
    }
    if (!it) return;
    // the page's idea of this disagreement is wrong: take the server's
    payloads.delete(key(it));
    load(it).then((p) => {
      if (!pending.some((x) => key(x) === key(it))) setDecision(it, p.decision);
    }, () => {}).finally(() => {
      if (onScreen(it)) show(); else paintCounts();
    });
  }

  function status() {
    const waiting = keys.filter((k) => k.grade !== undefined).length;
    const n = pending.length + waiting;
    let state = "saved";
    let text = "All decisions saved";
    if (waiting && !failures) {
      state = "saving";
      text = waiting + " decision" + (waiting === 1 ? "" : "s") + " waiting for the disagreement to load…";
    } else if (n && failures) {
      state = "retrying";
      text = n + " not saved yet (" + lastError + "): retrying…";
    } else if (n) {
      state = "saving";
      text = "Saving…";
    } else if (refusal) {
      state = "error";
      text = "Not saved: " + refusal;
    } else if (notice) {
      text = notice;
    }
    el.save.dataset.state = state;
    el.save.dataset.pending = String(n);
    el.save.textContent = text;
    el.undo.hidden = !undos.length;
  }

  // ------------------------------------------------------------------------------- reading
  // Reading ahead rides on the decisions: each one asks for the first of the next two
  // disagreements the page has not got, so in a run of decisions each is one request and the
  // next disagreement is on hand when its key comes. One not brought is fetched on its own.
  const carried = new Map(); // item key -> {resolve, reject} of the decision bringing it
  function carry(it) {
    const k = key(it);
    let settle = null;
    const promise = new Promise((resolve, reject) => { settle = { resolve: resolve, reject: reject }; })
      .finally(() => loading.delete(k));
    promise.catch(() => {});
    carried.set(k, settle);
    loading.set(k, promise);
  }
  function delivered(k, p) {
    if (p && key(p) === k) payloads.set(k, p);
    const settle = carried.get(k);
    if (!settle) return;
    carried.delete(k);
    if (payloads.has(k)) settle.resolve(payloads.get(k)); else settle.reject(new Error("not carried"));
  }
  function readAhead() {
    for (const i of [cur + 1, cur + 2]) {
      if (i >= list.length) break;
      const k = key(list[i]);
      if (!payloads.has(k) && !loading.has(k) && !unloadable.has(k)) { carry(list[i]); return list[i]; }
    }
    return null;
  }

  function fetchItem(it) {
    const url = S.urls.item + "?" + new URLSearchParams({ topic: it.topic, docno: it.docno });
    return request(url, { headers: { Accept: "application/json" } }).then(async (r) => {
      if (r.ok) return r.json();
      let answer = null;
      try { answer = await r.json(); } catch (e) { /* an error page */ }
      const error = new Error(reasons(answer, r.status));
      error.refused = r.status === 400 || r.status === 404;
      throw error;
    });
  }
  function load(it, attempt) {
    const k = key(it);
    if (payloads.has(k)) return Promise.resolve(payloads.get(k));
    if (unloadable.has(k)) return Promise.reject(new Error(unloadable.get(k)));
    if (!loading.has(k)) {
      const fetched = fetchItem(it)
        .then((p) => { payloads.set(k, p); return p; }, (err) => { if (err.refused) unloadable.set(k, err.message); throw err; })
        .finally(() => loading.delete(k));
      loading.set(k, fetched);
    }
    const tries = attempt || 0;
    // the disagreement on the screen is fetched again until it arrives (a dropped connection)
    return loading.get(k).catch((err) => {
      if (err.refused || tries >= 5 || !onScreen(it)) throw err;
      return new Promise((resolve) => setTimeout(resolve, 500 * 2 ** tries)).then(() => load(it, tries + 1));
    });
  }
  function prefetch() {
    for (const i of [cur + 1, cur - 1]) {
      if (i >= 0 && i < list.length) load(list[i]).catch(() => {});
    }
  }

  // ------------------------------------------------------------------------------- painting
  const onScreen = (it) => cur < list.length && list[cur] === it;

  function node(tag, text, className) {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (className) n.className = className;
    return n;
  }
  function paintVotes(votes) {
    el.votes.replaceChildren(...votes.map((v) => {
      const li = node("li", undefined, "vote");
      const who = node("span", v.assessor, "who");
      if (v.machine) { const b = node("span", "machine", "badge"); b.title = "a machine assessor (LLM)"; who.append(" ", b); }
      who.append(": ");
      if (v.cant_judge) who.append(node("em", "can't judge"));
      else who.append(String(v.grade), " ", node("span", labels.get(v.grade) || "", "muted"));
      li.append(who);
      if (v.comment) li.append(node("q", v.comment, "comment"));
      return li;
    }));
  }
  function paintDecision(d) {
    el.decision.replaceChildren();
    if (!d) { el.decision.append(node("span", "Not decided yet.", "muted")); return; }
    el.decision.append("Final grade ", node("strong", String(d.grade)), " by " + d.adjudicator);
    if (d.adjudicator !== S.me) el.decision.append(node("span", " (only they can change it)", "muted"));
    if (d.note) el.decision.append(": ", node("span", d.note, "muted"));
    if (d.unsaved) el.decision.append(node("span", " · saving", "muted"));
  }
  function paintScale(d) {
    for (const b of buttons) {
      b.disabled = cur >= list.length;
      // the adjudicator's own decision is marked; someone else's is told in words beside it
      const mine = Boolean(d) && d.adjudicator === S.me && Number(b.dataset.grade) === d.grade;
      b.classList.toggle("current", mine);
      b.classList.toggle("unsaved", mine && Boolean(d.unsaved));
      b.setAttribute("aria-pressed", mine ? "true" : "false");
    }
  }
  function paintCounts() {
    el.open.textContent = counts.open;
    el.decided.textContent = counts.decided;
  }
  // the page's own ?item= of list[index] once reloaded: the disagreements before it that the view
  // still shows then (a decided one leaves the open view, a withdrawn one the decided view)
  function reloadPosition(index) {
    const kept = (it) => S.show === "all" || (S.show === "open") === !it.decision;
    return list.slice(0, index).filter(kept).length + 1;
  }
  function pageUrl(position) {
    const q = new URLSearchParams({ show: S.show });
    if (S.kind && S.kind !== "all") q.set("kind", S.kind);
    if (filter) q.set("topic", filter);
    if (position) q.set("item", String(position));
    return S.urls.page + "?" + q;
  }

  function paint() {
    const it = list[cur];
    const p = payloads.get(key(it));
    el.item.dataset.topic = it.topic;
    el.item.dataset.docno = it.docno;
    el.topicNumber.textContent = it.topic;
    el.docno.textContent = it.docno;
    el.distance.textContent = it.distance;
    root.classList.toggle("loading", !p);
    paintScale(it.decision);
    paintDecision(it.decision);
    if (!p) {
      el.votes.replaceChildren();
      el.statementNumber.textContent = it.topic;
      for (const n of [el.topicTitle, el.description, el.narrative, el.docTitle]) n.textContent = "";
      el.docText.textContent = unloadable.has(key(it))
        ? "This disagreement cannot be shown: " + unloadable.get(key(it))
        : "Loading…";
      return;
    }
    paintVotes(p.votes);
    const t = p.statement || { number: it.topic, title: "", description: "", narrative: "" };
    el.statementNumber.textContent = t.number;
    el.topicTitle.textContent = t.title;
    el.description.textContent = t.description;
    el.descriptionBlock.hidden = !t.description;
    el.narrative.textContent = t.narrative;
    el.narrativeBlock.hidden = !t.narrative;
    el.docTitle.textContent = p.title;
    if (p.stored) el.docText.textContent = p.text;
    else el.docText.replaceChildren(node("em", "The text of this document is not stored.", "missing"));
  }

  function paintEnd() {
    const open = list.filter((it) => !it.decision).length;
    const where = filter ? " of topic " + filter : "";
    el.endTitle.textContent = "End of the list" + where;
    el.endText.replaceChildren();
    const next = nextTopic(1);
    if (open) el.endText.append(open + " disagreement" + (open === 1 ? " is" : "s are") + " still open here: press o for the first one. ");
    else el.endText.append("Every disagreement" + where + " in this view has a decision. ");
    if (next) el.endText.append("Press t for the next topic (" + next + ").");
    else el.endText.append("Press k to go back.");
  }

  function show() {
    const end = cur >= list.length;
    el.item.hidden = end;
    el.end.hidden = !end;
    el.prev.hidden = cur <= 0;
    el.next.hidden = end;
    el.prev.href = pageUrl(reloadPosition(Math.max(0, cur - 1)));
    el.next.href = pageUrl(reloadPosition(cur + 1));
    el.position.textContent = end ? "–" : String(cur + 1);
    el.count.textContent = list.length;
    if (el.topicFilter) el.topicFilter.value = filter;
    if (end) {
      root.classList.remove("loading");
      el.note.value = "";
      paintScale(null);
      paintEnd();
    } else {
      const it = list[cur];
      el.note.value = it.decision && it.decision.adjudicator === S.me ? it.decision.note : "";
      if (!payloads.has(key(it))) {
        load(it).then(() => { if (onScreen(it)) { paint(); drain(); } }, (err) => {
          if (!onScreen(it)) return;
          paint();
          if (!err.refused) el.docText.textContent = "The disagreement could not be loaded: check the connection, then go back and forth to retry.";
          dropKeys("it could not be shown");
        });
      }
      paint();
    }
    paintCounts();
    history.replaceState(null, "", pageUrl(reloadPosition(cur)));
    el.doc.scrollTop = 0;
    prefetch();
    status();
  }

  // keep a note typed on a disagreement decided by me that is left without a new grade
  function leave() {
    if (cur >= list.length) return;
    const it = list[cur];
    const note = el.note.value.trim();
    const d = it.decision;
    if (!d || d.adjudicator !== S.me || note === d.note) return;
    setDecision(it, Object.assign({}, d, { note: note, unsaved: true }));
    pending.push({ kind: "decide", id: ++seq, topic: it.topic, docno: it.docno, grade: d.grade, note: note });
    persist();
    pump();
  }

  function go(index) {
    leave();
    cur = Math.max(0, Math.min(index, list.length));
    show();
  }

  // ------------------------------------------------------------------------------- actions
  function decideNow(grade) {
    const it = list[cur];
    const note = el.note.value.trim();
    const before = it.decision ? Object.assign({}, it.decision) : null;
    delete (before || {}).unsaved;
    setDecision(it, { grade: grade, adjudicator: S.me, note: note, decided_at: null, unsaved: true });
    const op = { kind: "decide", id: ++seq, topic: it.topic, docno: it.docno, grade: grade, note: note };
    const ahead = readAhead();
    if (ahead) { op.next_topic = ahead.topic; op.next_docno = ahead.docno; }
    pending.push(op);
    undos.push({ op: op, topic: it.topic, docno: it.docno, grade: grade, before: before });
    refusal = "";
    notice = "";
    persist();
    pump();
    cur += 1; // the note went with the decision: nothing for leave() to keep
    show();
  }

  function undo() {
    refusal = "";
    const u = undos.pop();
    if (!u) { notice = "Nothing to undo"; status(); return; }
    notice = "Undone: " + u.topic + ", " + u.docno;
    const at = pending.indexOf(u.op);
    if (at >= 0 && inflight !== u.op && !u.op.attempts) {
      pending.splice(at, 1); // never sent: taken back
      if (u.op.next_topic !== undefined) delivered(u.op.next_topic + "\u0000" + u.op.next_docno, null);
    } else {
      pending.push({ kind: "undo", id: ++seq, of: u.op.id, topic: u.topic, docno: u.docno, grade: u.grade, previous: u.before });
    }
    const it = byKey.get(key(u));
    setDecision(it, u.before);
    if (filter && it.topic !== filter) { filter = it.topic; list = listed(); }
    cur = list.indexOf(it);
    persist();
    pump();
    show();
  }

  function topics() {
    return Array.from(new Set(all.map((it) => it.topic))).sort();
  }
  function nextTopic(dir) {
    const here = cur < list.length ? list[cur].topic : filter || (list.length ? list[list.length - 1].topic : "");
    const found = topics().filter((t) => (dir > 0 ? t > here : t < here));
    return found.length ? found[dir > 0 ? 0 : found.length - 1] : null;
  }
  function toTopic(dir) {
    const target = nextTopic(dir);
    if (!target) { notice = "No " + (dir > 0 ? "next" : "previous") + " topic in this view"; status(); return; }
    notice = "";
    leave();
    if (filter) { filter = target; list = listed(); }
    const ofTopic = list.filter((it) => it.topic === target);
    const first = ofTopic.find((it) => !it.decision) || ofTopic[0];
    cur = list.indexOf(first);
    show();
  }

  // Keys given before their disagreement is on the screen (it is still loading) wait here in
  // order and are applied one per disagreement as each arrives: a document is never decided
  // unseen, and a key is never dropped. Moves, undos and topic keys typed behind waiting grades
  // wait with them, so every key acts where it was meant to.
  const keys = []; // {grade} | {act: function}
  let draining = false;

  function drain() {
    if (draining) return;
    draining = true;
    try {
      while (keys.length) {
        const k = keys[0];
        if (k.act) { keys.shift(); k.act(); continue; }
        if (cur >= list.length) { dropKeys("no disagreement after the last one"); break; }
        if (!payloads.has(key(list[cur]))) break; // show() drains again once it is loaded
        keys.shift();
        decideNow(k.grade);
      }
    } finally {
      draining = false;
    }
    status();
  }
  function dropKeys(why) {
    const n = keys.filter((k) => k.grade !== undefined).length;
    if (n) refusal = n + " grade key" + (n === 1 ? "" : "s") + " not applied: " + why;
    keys.length = 0;
    status();
  }
  function queueKey(k) {
    keys.push(k);
    drain();
  }
  const act = (f) => queueKey({ act: f });

  // ------------------------------------------------------------------------------- keyboard
  function openHelp(open) {
    el.help.hidden = !open;
    if (!open) el.doc.focus({ preventScroll: true });
  }

  document.addEventListener("keydown", (e) => {
    const target = e.target;
    if (target === el.note) {
      if (e.key === "Escape" || e.key === "Enter") { e.preventDefault(); el.note.blur(); el.doc.focus({ preventScroll: true }); }
      return;
    }
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "z" || e.key === "Z")) {
      e.preventDefault(); act(undo); return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    if (!el.help.hidden) {
      if (e.key === "Escape" || e.key === "?" || e.key === "h") { e.preventDefault(); openHelp(false); }
      return;
    }
    if (target instanceof HTMLElement && target.closest("button, a, summary") && (e.key === "Enter" || e.key === " ")) return;
    const grade = gradeKeys.has(e.key) ? gradeKeys.get(e.key) : gradeKeys.get(e.key.toLowerCase());
    if (grade !== undefined) {
      e.preventDefault();
      if (!e.repeat) queueKey({ grade: grade });
      return;
    }
    switch (e.key) {
      case "ArrowRight": case "j": case "n":
        e.preventDefault(); act(() => go(cur + 1)); break;
      case "ArrowLeft": case "k": case "p":
        e.preventDefault(); act(() => go(cur - 1)); break;
      case "u":
        e.preventDefault(); if (!e.repeat) act(undo); break;
      case "t":
        e.preventDefault(); act(() => toTopic(1)); break;
      case "T":
        e.preventDefault(); act(() => toTopic(-1)); break;
      case "o":
        e.preventDefault();
        act(() => { const i = list.findIndex((it) => !it.decision); go(i < 0 ? list.length : i); });
        break;
      case "c":
        if (cur < list.length) { e.preventDefault(); el.note.focus(); }
        break;
      case "?": case "h":
        e.preventDefault(); openHelp(true); break;
      default:
    }
  });

  // the mouse works too: the grade buttons, Undo and the arrows do what their keys do
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const b = e.submitter;
    if (b && b.classList.contains("grade")) queueKey({ grade: Number(b.dataset.grade) });
    el.doc.focus({ preventScroll: true });
  });
  el.undo.addEventListener("click", () => act(undo));
  el.prev.addEventListener("click", (e) => { e.preventDefault(); act(() => go(cur - 1)); });
  el.next.addEventListener("click", (e) => { e.preventDefault(); act(() => go(cur + 1)); });
  el.help.addEventListener("click", (e) => { if (e.target === el.help) openHelp(false); });

  // replay what an earlier visit could not save (the tab was closed while offline)
  try {
    for (const op of JSON.parse(localStorage.getItem(storeKey) || "[]")) {
      const it = byKey.get(key(op));
      if (!it) continue;
      const restored = op.kind === "undo" ? op.previous : op.kind === "withdraw" ? null : { grade: op.grade, note: op.note };
      setDecision(it, restored && Object.assign({ adjudicator: S.me, decided_at: null, unsaved: true }, restored));
      pending.push(op);
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

  show();
  el.doc.focus({ preventScroll: true });
  pump();
})();
