import type { PageConfig } from "../../src/capture-page/shell";
import { App } from "./app";
import { I18n } from "./i18n";
import "./styles.css";

const config = JSON.parse(document.getElementById("page-config")!.textContent ?? "{}") as PageConfig;
const root = document.getElementById("app")!;
void new App(config.verification_id, new I18n(config.locale, config.strings), root).start();
