import { config } from "zod";

// In a browser, zod's first object schema probes for eval with `new Function("")`. The pages' Content-Security-Policy
// forbids eval, and Chromium reports the refused probe as a CSP violation although zod catches it. The modules that
// build schemas the dashboard's client code uses import this before anything else, so no schema is built first.
// On the server zod keeps its compiled parsers.
if (typeof window !== "undefined") config({ jitless: true });
