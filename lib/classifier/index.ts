export { type Classification, classify } from "./classify";
export * from "./json-rpc-codes";
export { layerOfReason, REASON_CODES, REASONS, type ReasonCode } from "./reasons";
