import { readFileSync } from "node:fs";
import { classify } from "@/lib/classifier";
import { validateRecord } from "@/lib/contract";
import { buildRecords } from "@/lib/otlp";
const spans = JSON.parse(readFileSync(process.argv[2]!, "utf8"));
const { records, problems } = buildRecords(spans);
console.log("problems", JSON.stringify(problems));
for (const raw of records) {
  const v = validateRecord(raw);
  if (!v.ok) { console.log("INVALID", JSON.stringify(v.issues)); continue; }
  const c = classify(v.record);
  console.log(v.record.call?.tool ?? "(session)", c.state, c.reasons.join(","), JSON.stringify(v.record.call?.response ?? null), v.record.call?.inCatalog);
}
console.log(JSON.stringify(records[0], null, 1).slice(0, 1500));
