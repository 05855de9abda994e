// exifr's source modules carry no types of their own; their exports are the package's.
declare module "exifr/src/bundles/lite.mjs" {
  import exifr from "exifr";
  export default exifr;
}
declare module "exifr/src/file-parsers/tiff.mjs";
