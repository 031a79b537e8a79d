// Sortable tables (click a header; numbers best-first, then reversed) and the source form's fields.
(function () {
  "use strict";

  function key(cell, numeric) {
    const raw = cell ? cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim() : "";
    if (!numeric) return raw;
    return raw === "" ? null : Number(raw);
  }

  function sortBy(table, th) {
    const headers = Array.from(th.parentNode.children);
    const col = headers.indexOf(th);
    const numeric = th.dataset.sort === "num";
    // numbers sort best (highest) first on the first click, text A-Z; a second click reverses
    const first = numeric ? "descending" : "ascending";
    const order = th.getAttribute("aria-sort") === first ? (first === "descending" ? "ascending" : "descending") : first;
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort(function (a, b) {
      const x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      if (x === null || y === null) return (x === null) - (y === null); // missing values last
      const c = numeric ? x - y : String(x).localeCompare(String(y));
      return order === "ascending" ? c : -c;
    });
    rows.forEach(function (r, i) {
      body.appendChild(r);
      const pos = r.querySelector("td.pos");
      if (pos) pos.textContent = String(i + 1);
    });
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", order);
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th[data-sort]").forEach(function (th) {
      if (th.dataset.sort === "none") return;
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });

  // the source form shows only the fields its kind uses
  const kind = document.getElementById("kind");
  if (kind) {
    const show = function () {
      document.querySelectorAll("#source-form [data-for]").forEach(function (el) {
        el.hidden = !el.dataset.for.split(" ").includes(kind.value);
        // a hidden field is not sent: two of them share the name "assessor"
        el.querySelectorAll("select, input").forEach(function (field) { field.disabled = el.hidden; });
      });
    };
    kind.addEventListener("change", show);
    show();
  }
})();
