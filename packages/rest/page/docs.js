/* global window, sessionStorage, SwaggerUIBundle */
// Renders the server's OpenAPI document with swagger-ui (served from this package's
// node_modules, no CDN). With auth on, the token the id page keeps in this tab's
// sessionStorage is sent as the bearer token, for the document and for "Try it out".
'use strict';

window.addEventListener('DOMContentLoaded', () => {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    // The default validator badge loads an image from a public host: none here.
    validatorUrl: null,
    requestInterceptor: (request) => {
      const token = sessionStorage.getItem('vesta.token');
      if (token && !request.headers.Authorization) {
        request.headers.Authorization = `Bearer ${token}`;
      }
      return request;
    },
  });
});
