// Checkable lists: <fieldset data-checklist> of <label data-item><input type="checkbox"> ...</label>,
// with a filter box that hides the items it does not match, "Select all shown" and "None", and a
// count of what is checked. Without this script the checkboxes work as they are (the tools stay
// hidden). Enter in the filter box filters; it never sends the form.
(function () {
  "use strict";
  document.querySelectorAll("[data-checklist]").forEach(function (list) {
    const items = Array.from(list.querySelectorAll("[data-item]"));
    const box = (item) => item.querySelector("input[type=checkbox]");
    const filter = list.querySelector("[data-filter]");
    const count = list.querySelector("[data-count]");
    const tools = list.querySelector("[data-tools]");
    if (tools) tools.hidden = false;

    function paint() {
      const checked = items.filter((i) => box(i).checked).length;
      const shown = items.filter((i) => !i.hidden).length;
      let text = checked ? checked + " of " + items.length + " checked" : (list.dataset.none || "none checked");
      if (shown < items.length) text += " · " + shown + " shown";
      count.textContent = text;
    }
    function apply() {
      const words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      for (const item of items) {
        const text = item.textContent.toLowerCase() + " " + (item.title || "").toLowerCase();
        item.hidden = !words.every((w) => text.includes(w));
      }
      paint();
    }
    function set(on) {
      for (const item of items) if (!item.hidden) box(item).checked = on;
      paint();
    }
    filter.addEventListener("input", apply);
    filter.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); apply(); }
      if (event.key === "Escape" && filter.value) { event.preventDefault(); filter.value = ""; apply(); }
    });
    list.querySelector("[data-all]").addEventListener("click", () => set(true));
    list.querySelector("[data-clear]").addEventListener("click", () => set(false));
    list.addEventListener("change", paint);
    apply();
  });
})();
