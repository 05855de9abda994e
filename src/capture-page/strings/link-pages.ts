/**
 * The small pages a template link answers with instead of the capture page (not found, withdrawn,
 * busy), in the capture page's locales: the person who opens the link reads them in the same
 * language the capture page would have used. `{name}` is the template's name.
 */
export const LINK_PAGES = {
  en: {
    not_found_heading: "Link not found",
    not_found_body: "This link does not exist. Check that it was copied completely, or ask for a new one.",
    revoked_heading: "This link is no longer active",
    revoked_body: "“{name}” was withdrawn by the organisation that shared it. Ask them for a new link.",
    unavailable_heading: "This link cannot be used right now",
    unavailable_body: "“{name}” cannot start a verification at the moment. Try again later, or ask the organisation that shared it.",
    busy_heading: "Too many verifications started",
    busy_body: "This network started many verifications in the last few minutes. Wait a little and open the link again.",
    later_heading: "Please try again later",
    later_body: "This link cannot start a new verification right now. Try again later, or ask the organisation that shared it.",
    preview_body: "Open this link on your phone to start the verification.",
  },
  es: {
    not_found_heading: "Enlace no encontrado",
    not_found_body: "Este enlace no existe. Comprueba que se copió completo o pide uno nuevo.",
    revoked_heading: "Este enlace ya no está activo",
    revoked_body: "La organización que compartió «{name}» lo retiró. Pídele un enlace nuevo.",
    unavailable_heading: "Este enlace no se puede usar ahora",
    unavailable_body: "«{name}» no puede iniciar una verificación en este momento. Inténtalo más tarde o pregunta a la organización que lo compartió.",
    busy_heading: "Demasiadas verificaciones iniciadas",
    busy_body: "Esta red inició muchas verificaciones en los últimos minutos. Espera un poco y vuelve a abrir el enlace.",
    later_heading: "Inténtalo más tarde",
    later_body: "Este enlace no puede iniciar una verificación nueva ahora. Inténtalo más tarde o pregunta a la organización que lo compartió.",
    preview_body: "Abre este enlace en tu teléfono para iniciar la verificación.",
  },
} as const satisfies Record<string, Record<string, string>>;

export type LinkPageKey = keyof (typeof LINK_PAGES)["en"];
