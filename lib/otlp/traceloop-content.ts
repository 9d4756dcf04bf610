import { capabilityPaths, withTasksFeature } from "../collector/capabilities";
import { VERSION_PATTERN } from "../contract/record";
import { METHODS, RECEIPT, TRACELOOP } from "./attribute-names";
import { hashToolName } from "./hashing";
import type { OtlpAttributes } from "./span";

/**
 * `@traceloop/instrumentation-mcp` records request params and results as JSON text (`traceloop.entity.input` /
 * `traceloop.entity.output`, on by default). Those are content and are dropped, but the session evidence in them
 * is what the conventions' attributes would have said: the initialize handshake (versions, client and server
 * info, capabilities) and the tools/list page (how many tools, which names). This reads exactly that, as
 * `receipt.*` attributes, and nothing else; tool names are kept only as hashes.
 */
export function evidenceFromTraceloopContent(method: string, attributes: OtlpAttributes): OtlpAttributes {
  const input = parseObject(attributes[TRACELOOP.entityInput]);
  const output = parseObject(attributes[TRACELOOP.entityOutput]);
  const derived: OtlpAttributes = {};
  if (method === METHODS.initialize) {
    if (input !== undefined) {
      setVersion(derived, RECEIPT.requestedVersion, input.protocolVersion);
      setPeer(derived, input.clientInfo, RECEIPT.clientName, RECEIPT.clientVersion);
      setCapabilities(derived, RECEIPT.clientCapabilities, input.capabilities);
    }
    if (output !== undefined) {
      setVersion(derived, RECEIPT.acceptedVersion, output.protocolVersion);
      setPeer(derived, output.serverInfo, RECEIPT.serverName, RECEIPT.serverVersion);
      setCapabilities(derived, RECEIPT.serverCapabilities, output.capabilities);
    }
  }
  if (method === METHODS.toolsList && output !== undefined && Array.isArray(output.tools)) {
    const names = output.tools
      .map((tool) => (isObject(tool) && typeof tool.name === "string" ? tool.name : undefined))
      .filter((name): name is string => name !== undefined);
    derived[RECEIPT.catalogToolCount] = output.tools.length;
    derived[RECEIPT.catalogToolNameHashes] = names.map(hashToolName);
  }
  return derived;
}

function parseObject(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function setVersion(derived: OtlpAttributes, key: string, version: unknown): void {
  if (typeof version === "string" && VERSION_PATTERN.test(version)) derived[key] = version;
}

function setPeer(derived: OtlpAttributes, info: unknown, nameKey: string, versionKey: string): void {
  if (!isObject(info)) return;
  if (typeof info.name === "string" && info.name.length <= 128) derived[nameKey] = info.name;
  if (typeof info.version === "string" && info.version.length <= 64) derived[versionKey] = info.version;
}

function setCapabilities(derived: OtlpAttributes, key: string, capabilities: unknown): void {
  if (isObject(capabilities)) derived[key] = withTasksFeature(capabilityPaths(capabilities)).sort();
}
