// Starts Swagger UI on the API reference page (workbench/api_reference.py): a static file, as the
// Content-Security-Policy wants, reading what drf-spectacular's view hands its own inline script
// from the container's data- attributes.
(function () {
  "use strict";
  const root = document.getElementById("swagger-ui");
  if (!root || typeof SwaggerUIBundle === "undefined") return;
  const settings = JSON.parse(root.dataset.settings || "{}");
  const csrfHeader = root.dataset.csrfHeader;
  const csrfToken = root.dataset.csrfToken;

  // "Try it out" acts as whoever the request names. Authorized (a token or a password typed into
  // "Authorize", which Swagger UI puts in the Authorization header), it carries only that: the
  // browser's session cookie is left out, or the server would take the session first. Otherwise
  // it is this browser's session, and a change needs the CSRF token as a session's forms send it.
  function requestInterceptor(request) {
    if (request.loadSpec) return request;
    const method = (request.method || "GET").toUpperCase();
    if (request.headers.Authorization) {
      request.credentials = "omit";
    } else if (!["GET", "HEAD", "OPTIONS"].includes(method)) {
      request.headers[csrfHeader] = csrfToken;
    }
    return request;
  }

  window.workbenchApiReference = SwaggerUIBundle(Object.assign({
    url: root.dataset.schemaUrl,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    requestInterceptor: requestInterceptor,
  }, settings));
})();
