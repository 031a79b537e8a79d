// <a data-back href="...">: goes back one page in the browser's history (no javascript: URL, which the
// Content-Security-Policy refuses); the href is where it goes when there is no page to go back to.
(function () {
  document.querySelectorAll("a[data-back]").forEach(function (link) {
    link.addEventListener("click", function (event) {
      if (window.history.length > 1) { event.preventDefault(); window.history.back(); }
    });
  });
})();
