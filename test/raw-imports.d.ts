// Vite's `?raw` imports (a file's text), used to check code constants against wrangler.toml.
declare module "*?raw" {
  const content: string;
  export default content;
}
