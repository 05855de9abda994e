/*
 * The API reference at /docs: Swagger UI (swagger-ui-dist, bundled at build time into
 * dist/public/docs/) rendering /v1/openapi.json. Everything it loads comes from this Worker, so the
 * page's CSP allows scripts, styles and requests from 'self' only; the online validator badge is off.
 */
import SwaggerUIBundle from "swagger-ui-dist/swagger-ui-bundle.js";
import "./style.css";

SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
});
