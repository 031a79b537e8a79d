// "Copy" buttons: <button data-copy="ID" data-copied="ID2"> copies the value of the field #ID (or the
// text of any other element) to the clipboard and shows #ID2. Without the clipboard API (plain http)
// the text is selected and copied the old way, or left selected for Ctrl+C.
(function () {
  function select(source) {
    if ("select" in source) { source.select(); return; }
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", async function () {
      const source = document.getElementById(button.dataset.copy);
      const text = "value" in source ? source.value : source.textContent;
      try { await navigator.clipboard.writeText(text); }
      catch (e) { select(source); document.execCommand("copy"); }
      document.getElementById(button.dataset.copied).hidden = false;
    });
  });
})();
