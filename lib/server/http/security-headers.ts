// The browser-facing security policy of every response. Pure (no Next.js imports): proxy.ts sends the per-request
// page policy, next.config.ts sends the fixed headers, and both read them from here.

/** Request header through which a page's server components can read the nonce of their response. */
export const NONCE_HEADER = "x-nonce";

/** A fresh, unguessable CSP nonce: 128 random bits, base64. One per page response, never reused. */
export function createNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The Content-Security-Policy of an HTML page. Scripts run only with this response's nonce (Next.js puts it on its
 * own scripts when it finds it in the request's policy); 'strict-dynamic' lets those scripts load the page's chunks.
 * Style elements need the nonce too, but style attributes are allowed: React renders `style={…}` props (recharts
 * sizes, state colours) into the server HTML, and an attribute can neither run script nor select other elements.
 * `development` adds 'unsafe-eval', which React's dev build needs to rebuild server error stacks.
 */
export function pageContentSecurityPolicy(nonce: string, development = false): string {
  const nonceSource = `'nonce-${nonce}'`;
  return [
    "default-src 'self'",
    `script-src 'self' ${nonceSource} 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${nonceSource}`,
    `style-src-elem 'self' ${nonceSource}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The policy of everything that is not a page (JSON, static files): it may load nothing and be framed by no one. */
export const RESOURCE_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Sent with every response. The referrer policy never lets a path leave the site (the dashboard's URLs carry chain
 * and session ids); `no-referrer` would also make browsers send `Origin: null` on the dashboard's own POSTs, which
 * the cookie-authenticated API reads to refuse cross-site writes.
 */
export const SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Cross-Origin-Resource-Policy", value: "same-origin" },
];
