import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Receipt", template: "%s · Receipt" },
  description: "MCP health evidence: no green without a receipt.",
};

// Every page renders per request, the 404 page too: a prerendered page's scripts would lack the nonce that the
// response's Content-Security-Policy (proxy.ts) requires, and the browser would refuse to run them.
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        {children}
      </body>
    </html>
  );
}
