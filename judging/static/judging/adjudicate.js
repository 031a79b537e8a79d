// The adjudication page: one disagreement at a time, decided with the scale's keys like the
// judging page. Without this script every disagreement is shown with its own form; with it the
// keys pick a grade for the one on the screen, and the page comes back on the one after it.
(function () {
  "use strict";

  const queue = document.getElementById("adjudication-queue");
  if (!queue) return;
  const cards = Array.from(queue.querySelectorAll("article.disagreement"));
  const storeKey = "workbench.adjudicate." + location.pathname + location.search;
  let cur = 0;
  try {
    const wanted = sessionStorage.getItem(storeKey);
    const found = cards.findIndex((c) => c.dataset.topic + " " + c.dataset.docno === wanted);
    if (found >= 0) cur = found;
  } catch (e) { /* storage disabled: start at the first */ }

  queue.classList.add("one-at-a-time");
  function show(index) {
    cur = Math.max(0, Math.min(index, cards.length - 1));
    cards.forEach((c, i) => { c.hidden = i !== cur; });
    cards[cur].focus({ preventScroll: true });
    cards[cur].scrollIntoView({ block: "nearest" });
  }

  // the page comes back (post, redirect, get) on the disagreement after the decided one
  function remember(card) {
    const i = cards.indexOf(card);
    const next = cards[i + 1] || cards[i - 1];
    try {
      if (next) sessionStorage.setItem(storeKey, next.dataset.topic + " " + next.dataset.docno);
      else sessionStorage.removeItem(storeKey);
    } catch (e) { /* the first one then */ }
  }
  cards.forEach((card) => card.querySelector("form.decide").addEventListener("submit", () => remember(card)));

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    const target = e.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) {
      if (e.key === "Escape" && target.classList.contains("note")) { e.preventDefault(); target.blur(); cards[cur].focus(); }
      return;
    }
    const card = cards[cur];
    const button = Array.from(card.querySelectorAll("button.grade")).find((b) => b.dataset.key === e.key || b.dataset.key === e.key.toLowerCase());
    if (button) {
      e.preventDefault();
      if (!e.repeat) button.click();
      return;
    }
    switch (e.key) {
      case "ArrowRight": case "j": case "n": e.preventDefault(); show(cur + 1); break;
      case "ArrowLeft": case "k": case "p": e.preventDefault(); show(cur - 1); break;
      case "c": e.preventDefault(); card.querySelector("input.note").focus(); break;
      default:
    }
  });
  show(cur);
})();
