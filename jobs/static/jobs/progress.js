// Poll the job's status while it is queued or running; reload the page once it ends to show its result.
(function () {
  const box = document.getElementById("job");
  if (!box || box.dataset.status === "done" || box.dataset.status === "failed") return;
  const bar = document.getElementById("job-progress");
  const badge = document.getElementById("job-status");
  const phase = document.getElementById("job-phase");
  const count = document.getElementById("job-count");
  let delay = 300;
  function poll() {
    fetch(box.dataset.statusUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        badge.textContent = s.status;
        badge.className = "badge " + s.status;
        phase.textContent = s.phase || "";
        if (s.percent === null) bar.removeAttribute("value"); else bar.value = s.percent;
        count.textContent = s.total ? s.done.toLocaleString() + " of " + s.total.toLocaleString() : "";
        if (s.finished) { window.location.reload(); return; }
        delay = Math.min(delay * 1.3, 2000);
        setTimeout(poll, delay);
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, delay);
})();
