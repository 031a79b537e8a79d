// "Download" buttons: <button data-download="ID" data-filename="NAME.csv"> saves the text of the field
// #ID (a textarea the page filled) as the file NAME.csv, made in the browser: what is shown once is
// never fetched again from the server, which does not keep it.
(function () {
  document.querySelectorAll("button[data-download]").forEach(function (button) {
    button.addEventListener("click", function () {
      const source = document.getElementById(button.dataset.download);
      const text = "value" in source ? source.value : source.textContent;
      const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = button.dataset.filename || "download.csv";
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    });
  });
})();
