// Live estimates: poll the JSON endpoint and update the numbers, the per-topic table, the leaderboard
// and the chart (server-rendered SVG that comes with the JSON) without reloading the page.
(function () {
  "use strict";
  const box = document.getElementById("live");
  if (!box) return;
  const every = parseInt(box.dataset.refreshMs, 10) || 5000;
  const state = document.getElementById("live-state");

  // one decimal, dropped when it is 0: Django's floatformat:"-1"
  function num(v) {
    if (v === null || v === undefined) return "—";
    const r = Math.round(v * 10) / 10;
    return Number.isInteger(r) ? String(r) : r.toFixed(1);
  }
  function interval(lo, hi) { return "[" + num(lo) + ", " + num(hi) + "]"; }
  function setText(id, text) {
    const el = document.getElementById(id);
    if (el && el.textContent !== text) el.textContent = text;
  }
  function cell(tag, text, cls, title) {
    const el = document.createElement(tag);
    el.textContent = text;
    if (cls) el.className = cls;
    if (title) el.title = title;
    return el;
  }

  function overall(o) {
    const e = o.estimate;
    setText("overall-judged", String(o.judged));
    setText("overall-to-judge", String(o.to_judge));
    setText("overall-found", String(o.found));
    setText("overall-rhat", e.r_hat === null ? "—" : num(e.r_hat));
    setText("overall-ci", e.r_hat === null ? "" : interval(e.low, e.high));
    setText("overall-unjudged", e.r_hat === null ? "—" : num(e.unjudged_relevant.estimate));
    setText("overall-unjudged-ci", e.r_hat === null ? "" :
      interval(e.unjudged_relevant.low, e.unjudged_relevant.high));
    setText("overall-estimated", String(o.estimated_topics));
    setText("overall-topics", String(o.topics));
    setText("overall-found-elsewhere", String(o.found_elsewhere));
  }

  function topics(rows) {
    const body = document.querySelector("#live-topics tbody");
    if (!body) return;
    const out = document.createDocumentFragment();
    rows.forEach(function (t) {
      const tr = document.createElement("tr");
      tr.dataset.topic = t.topic;
      tr.dataset.design = t.design;
      const fields = [
        cell("td", t.topic, "", t.title),
        cell("td", t.design, "design", t.reason),
        cell("td", String(t.pooled)),
        cell("td", String(t.to_judge)),
        cell("td", String(t.judged)),
        cell("td", String(t.found)),
        cell("td", t.r_hat === null ? "≥ " + t.found : num(t.r_hat)),
        cell("td", interval(t.low, t.high), "ci"),
      ];
      const un = cell("td", t.r_hat === null ? "—" : num(t.unjudged_relevant.estimate) + " ");
      if (t.r_hat !== null) {
        un.appendChild(cell("span", interval(t.unjudged_relevant.low, t.unjudged_relevant.high), "muted ci"));
      }
      fields.push(un, cell("td", t.interval_text, "design muted"));
      const names = ["", "design", "pooled", "to_judge", "judged", "found", "r_hat", "ci", "unjudged_relevant", "interval"];
      fields.forEach(function (td, i) { if (names[i]) td.dataset.field = names[i]; tr.appendChild(td); });
      out.appendChild(tr);
    });
    body.replaceChildren(out);
  }

  function leaderboard(b) {
    const table = document.getElementById("live-leaderboard");
    if (!table) return;
    const head = table.querySelector("thead tr");
    const wanted = ["Rank", "Run", "Group"].concat(b.measures);
    if (Array.from(head.children).map(function (th) { return th.textContent; }).join("|") !== wanted.join("|")) {
      head.replaceChildren.apply(head, wanted.map(function (m, i) { return cell("th", m, i === 1 || i === 2 ? "text" : ""); }));
    }
    const body = table.querySelector("tbody");
    const out = document.createDocumentFragment();
    b.rows.forEach(function (row) {
      const tr = document.createElement("tr");
      tr.dataset.run = row.run;
      tr.appendChild(cell("td", String(row.rank)));
      tr.appendChild(cell("td", row.run, "text"));
      tr.appendChild(cell("td", row.group, "text"));
      row.scores.forEach(function (v) { tr.appendChild(cell("td", v === null ? "—" : v.toFixed(4))); });
      out.appendChild(tr);
    });
    if (!b.rows.length) {
      const tr = document.createElement("tr");
      const td = cell("td", "no scores yet", "muted text");
      td.colSpan = 3;
      tr.appendChild(td);
      out.appendChild(tr);
    }
    body.replaceChildren(out);
  }

  function poll() {
    fetch(box.dataset.apiUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      })
      .then(function (data) {
        // a new judgment changes the version; a finished leaderboard job only the leaderboard
        const job = data.leaderboard.job;
        const stamp = [data.version, data.computed_at, job ? job.id + job.status : ""].join("|");
        if (stamp !== box.dataset.stamp) {
          box.dataset.stamp = stamp;
          box.dataset.version = data.version;
          overall(data.overall);
          topics(data.topics);
          leaderboard(data.leaderboard);
          if (data.chart) document.getElementById("live-chart").innerHTML = data.chart;
          setText("live-updated", data.computed_at.slice(0, 19));
        }
        if (state) state.textContent = "";
        setTimeout(poll, every);
      })
      .catch(function (err) {
        if (state) state.textContent = "(refresh failed: " + err.message + "; retrying)";
        setTimeout(poll, every * 2);
      });
  }
  setTimeout(poll, every);
})();
