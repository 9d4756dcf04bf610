export * from "./record";
export * from "./redaction";
export * from "./schema-hash";
export * from "./sha256";
export * from "./states";
export * from "./storable";
export * from "./timestamp";
export * from "./validate";
