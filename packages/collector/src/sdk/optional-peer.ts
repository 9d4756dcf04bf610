/**
 * Loads an SDK the adopter may not have installed. Both SDKs are optional peer dependencies: an
 * agent on SDK 1.x alone must be able to import the collector, so neither may be a static import.
 * Anything but "this package is not installed" is the package's own failure and is rethrown.
 */
export async function optionalPeer<T>(packageName: string, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) return undefined;
    throw error;
  }
}

function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
  return missing && typeof message === "string" && message.includes(packageName);
}

/** The error a collector method throws when the SDK it needs is absent. */
export function peerMissing(packageName: string, major: string): Error {
  return new Error(`${packageName} (${major}) is not installed: npm install ${packageName}`);
}
