// Show only the parameters the chosen strategy reads; hidden inputs are disabled so they are not sent.
(function () {
  const HELP = {
    depth: "Depth-k: the union of every pooled run's top k documents.",
    take: "Take@N: documents by best rank over the runs until the budget.",
    rrf: "Reciprocal rank fusion (k = 60) up to the budget.",
    combsum: "CombSUM of min-max normalized scores up to the budget.",
    combmnz: "CombMNZ up to the budget.",
    borda: "Borda-fuse (Aslam & Montague): each run's points n..1 over the topic's n candidates, the rest shared by the documents it missed; up to the budget.",
    "borda-longest": "A plain Borda count from the longest ranking (nothing for documents a run missed), up to the budget.",
    rbp: "RBP-weighted (method A) up to the budget.",
    uniform: "A uniform random sample of the depth-k pool (infAP).",
    stratified: "Stratified sample by best rank (xinfAP, xinfNDCG): rates per stratum or a budget.",
    mtf: "Move-to-front: an adaptive queue that keeps judging the run that last found a relevant document.",
    maxmean: "MaxMean bandit: judges from the run with the best estimated precision.",
    thompson: "Thompson sampling over the runs' precision.",
    hedge: "Hedge: online learning of run weights from the judgments.",
  };
  const select = document.getElementById("strategy");
  // the strategy names of each kind, from the page's json_script blocks (no inline script: CSP)
  const FUSION = JSON.parse(document.getElementById("pool-fusions").textContent);
  const ADAPTIVE = JSON.parse(document.getElementById("pool-adaptive").textContent);
  function kinds(name) {
    const out = [name];
    if (FUSION.includes(name)) out.push("fusion");
    if (ADAPTIVE.includes(name)) out.push("adaptive");
    return out;
  }
  function update() {
    const active = kinds(select.value);
    document.querySelectorAll("[data-for]").forEach(function (el) {
      const shown = el.dataset.for.split(" ").some(function (k) { return active.includes(k); });
      el.hidden = !shown;
      el.querySelectorAll("input, select, textarea").forEach(function (i) { i.disabled = !shown; });
    });
    document.getElementById("strategy-help").textContent = HELP[select.value] || "";
  }
  select.addEventListener("change", update);
  update();
})();
