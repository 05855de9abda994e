// swagger-ui-dist ships its browser bundle without type declarations; this is the part /docs uses.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  interface SwaggerUIOptions {
    url: string;
    dom_id: string;
    deepLinking?: boolean;
    validatorUrl?: string | null;
    defaultModelsExpandDepth?: number;
    tryItOutEnabled?: boolean;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => unknown;
  export default SwaggerUIBundle;
}
