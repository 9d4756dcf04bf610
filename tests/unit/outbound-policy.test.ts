// The outbound policy's pure decisions: which addresses, URLs and vendor targets Receipt may send to.
import { describe, expect, it } from "vitest";
import {
  addressClass,
  decideAddress,
  decideUrl,
  type OutboundPolicy,
  parseOutboundAllow,
} from "@/lib/outbound/address-policy";
import { targetRefusal } from "@/lib/outbound/target-rules";

const closedNone: OutboundPolicy = { allow: [], closed: [] };
const notLocal = () => false;
const loopbackAllowed: OutboundPolicy = { allow: parseOutboundAllow("127.0.0.0/8, ::1"), closed: [] };

describe("addressClass", () => {
  it.each([
    ["169.254.169.254", "metadata address"],
    ["fd00:ec2::254", "metadata address"],
    ["fd00:ec2:0:0:0:0:0:254", "metadata address"],
    ["169.254.170.2", "metadata address"],
    ["100.100.100.200", "metadata address"],
    ["::ffff:169.254.169.254", "metadata address"],
    ["127.0.0.1", "loopback address"],
    ["127.255.255.254", "loopback address"],
    ["::1", "loopback address"],
    ["0.0.0.0", "loopback address"],
    ["::", "loopback address"],
    ["::ffff:127.0.0.1", "loopback address"],
    ["::ffff:7f00:1", "loopback address"],
    ["64:ff9b::7f00:1", "loopback address"],
    ["2002:7f00:1::", "loopback address"],
    ["10.1.2.3", "private address"],
    ["172.16.0.1", "private address"],
    ["172.31.255.255", "private address"],
    ["192.168.1.1", "private address"],
    ["100.64.0.1", "private address"],
    ["fc00::1", "private address"],
    ["fd12:3456::1", "private address"],
    ["64:ff9b::a00:1", "private address"],
    ["169.254.1.1", "link-local address"],
    ["fe80::1", "link-local address"],
    ["224.0.0.1", "reserved address"],
    ["ff02::1", "reserved address"],
    ["255.255.255.255", "reserved address"],
    ["240.0.0.1", "reserved address"],
    ["2001::1", "reserved address"],
    ["not-an-ip", "not an address"],
  ])("%s is a %s", (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "64:ff9b::808:808"])(
    "%s is public",
    (address) => {
      expect(addressClass(address)).toBeNull();
    },
  );
});

describe("decideUrl", () => {
  it.each([
    ["http://2130706433/", "loopback address"],
    ["http://0x7f000001/", "loopback address"],
    ["http://017700000001/", "loopback address"],
    ["http://127.1:8080/x", "loopback address"],
    ["http://[::ffff:169.254.169.254]/latest", "metadata address"],
    ["http://[fd00:ec2::254]/latest/meta-data", "metadata address"],
    ["http://169.254.169.254/latest/meta-data/iam", "metadata address"],
    ["http://metadata.google.internal/computeMetadata/v1/", "metadata address"],
    ["http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/", "metadata address"],
    ["http://metadata/computeMetadata/v1/", "metadata address"],
    ["https://10.0.0.5:8443/hook", "private address"],
    ["ftp://example.com/", "not an address"],
    ["not a url", "not an address"],
  ])("%s is refused as a %s", (url, expected) => {
    expect(decideUrl(url, closedNone, notLocal)).toBe(expected);
  });

  it("leaves names to the connect-time check and lets public addresses through", () => {
    expect(decideUrl("https://hooks.example.com/x", closedNone, notLocal)).toBeNull();
    expect(decideUrl("https://93.184.216.34/x", closedNone, notLocal)).toBeNull();
  });

  it("lets an allowed range through, and only that range", () => {
    expect(decideUrl("http://127.0.0.1:9000/hook", loopbackAllowed, notLocal)).toBeNull();
    expect(decideUrl("http://[::1]:9000/hook", loopbackAllowed, notLocal)).toBeNull();
    expect(decideUrl("http://10.0.0.1/hook", loopbackAllowed, notLocal)).toBe("private address");
    expect(decideUrl("http://169.254.169.254/", loopbackAllowed, notLocal)).toBe("metadata address");
  });
});

describe("decideAddress", () => {
  const policy: OutboundPolicy = {
    allow: parseOutboundAllow("127.0.0.0/8,10.0.0.0/8"),
    closed: [
      { reason: "this app's own address", port: 3000, addresses: [] },
      { reason: "the database's address", port: 5432, addresses: ["10.0.0.9"] },
    ],
  };
  const local = (address: string) => address === "93.184.216.34" || address === "127.0.0.1";

  it("never reaches the app's own port on this machine, allowed range or not", () => {
    expect(decideAddress("127.0.0.1", 3000, policy, local)).toBe("this app's own address");
    expect(decideAddress("127.0.0.2", 3000, policy, local)).toBe("this app's own address");
    expect(decideAddress("93.184.216.34", 3000, policy, local)).toBe("this app's own address");
    expect(decideAddress("127.0.0.1", 3001, policy, local)).toBeNull();
  });

  it("never reaches the database, allowed range or not", () => {
    expect(decideAddress("10.0.0.9", 5432, policy, local)).toBe("the database's address");
    expect(decideAddress("::ffff:10.0.0.9", 5432, policy, local)).toBe("the database's address");
    expect(decideAddress("10.0.0.8", 5432, policy, local)).toBeNull();
  });

  it("refuses this machine's public address on any port when not allowed", () => {
    expect(decideAddress("93.184.216.34", 8080, { allow: [], closed: [] }, local)).toBe(
      "this app's own address",
    );
  });
});

describe("parseOutboundAllow", () => {
  it("reads addresses and ranges, comma- or space-separated", () => {
    expect(parseOutboundAllow(" 127.0.0.1, 10.0.0.0/8 fd00::/8 ").map((range) => range.text)).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "fd00::/8",
    ]);
    expect(parseOutboundAllow("")).toEqual([]);
  });

  it.each(["10.0.0.0/33", "localhost", "10.0.0", "*"])("refuses %s with a sentence naming it", (entry) => {
    expect(() => parseOutboundAllow(`127.0.0.1,${entry}`)).toThrow(
      `"${entry}" is not an IP address or CIDR range`,
    );
  });
});

describe("targetRefusal", () => {
  it("sends Slack targets only to Slack's hooks host over https", () => {
    const slack = (url: string) => targetRefusal({ type: "slack", url }, closedNone, notLocal);
    expect(slack("https://hooks.slack.com/services/T0/B0/XYZ")).toBeNull();
    expect(slack("https://hooks.slack-gov.com/services/T0/B0/XYZ")).toBeNull();
    expect(slack("http://hooks.slack.com/services/T0/B0/XYZ")?.code).toBe("vendor_host_required");
    expect(slack("https://hooks.slack.com:8443/services/T0/B0/XYZ")?.code).toBe("vendor_host_required");
    expect(slack("https://attacker.example/services/T0/B0/XYZ")).toEqual({
      code: "vendor_host_required",
      message: "a Slack target posts to https://hooks.slack.com or https://hooks.slack-gov.com",
    });
    expect(slack("https://hooks.slack.com.attacker.example/services/x")?.code).toBe("vendor_host_required");
  });

  it("sends PagerDuty targets only to its Events API hosts", () => {
    const pd = (url: string) => targetRefusal({ type: "pagerduty", url }, closedNone, notLocal);
    expect(pd("https://events.pagerduty.com/v2/enqueue")).toBeNull();
    expect(pd("https://events.eu.pagerduty.com/v2/enqueue")).toBeNull();
    expect(pd("https://pagerduty.attacker.example/v2/enqueue")?.code).toBe("vendor_host_required");
  });

  it("lets a vendor target post to an address the admin allowed (a relay, the tests' receiver)", () => {
    const slack = (url: string) => targetRefusal({ type: "slack", url }, loopbackAllowed, notLocal);
    expect(slack("http://127.0.0.1:8740/services/T0/B0/XYZ")).toBeNull();
    expect(slack("http://localhost:8740/services/T0/B0/XYZ")?.code).toBe("vendor_host_required");
  });

  it("refuses a webhook at a refused address with the policy's sentence", () => {
    expect(targetRefusal({ type: "webhook", url: "http://169.254.169.254/" }, closedNone, notLocal)).toEqual({
      code: "outbound_refused",
      message: "refused by the outbound policy (metadata address)",
    });
    expect(
      targetRefusal({ type: "webhook", url: "https://hooks.example.com/x" }, closedNone, notLocal),
    ).toBeNull();
  });
});
