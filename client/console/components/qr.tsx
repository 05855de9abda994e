import { renderSVG } from "uqr";
import { useMemo } from "preact/hooks";

/** A QR code of `text` (an SVG drawn here, shown as an image: nothing is fetched). */
export function QrCode(props: { text: string; label: string; size?: number }) {
  const src = useMemo(() => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(props.text, { ecc: "M", border: 2 }))}`, [props.text]);
  const size = props.size ?? 176;
  return <img class="qr" src={src} width={size} height={size} alt={props.label} />;
}
