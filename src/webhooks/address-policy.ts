import dns from 'node:dns';
import net from 'node:net';

/**
 * Webhooks must not become a way to reach the service's own network (SSRF). Private, loopback,
 * link-local and other non-public ranges are refused unless WEBHOOK_ALLOW_PRIVATE=true
 * (development and tests, whose receivers listen on 127.0.0.1).
 */
export function privateTargetsAllowed(): boolean {
  return process.env.WEBHOOK_ALLOW_PRIVATE === 'true';
}

const NON_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach any IPv4 address, private ones included
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) are checked against the IPv4 ranges. */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** How a developer whose receiver listens on their own machine or network gets it accepted. */
const ALLOW_PRIVATE_HINT =
  'webhooks are sent to public addresses only; to allow private and loopback ones in development, start the ' +
  'service with WEBHOOK_ALLOW_PRIVATE=true (docs/configuration.md)';

/**
 * Why a destination host is refused, or null: what is wrong, and how to allow it in development. Only
 * literal addresses and localhost can be judged without DNS.
 */
export function nonPublicHostReason(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.')
    return `must not point to ${host}, a loopback host: ${ALLOW_PRIVATE_HINT}`;
  if (isNonPublicAddress(host))
    return `must not point to ${host}, a private, loopback or link-local address: ${ALLOW_PRIVATE_HINT}`;
  return null;
}

export class NonPublicAddressError extends Error {
  readonly code = 'ENONPUBLIC';
}

/**
 * A dns.lookup for http.request that refuses names resolving to non-public addresses. Checking the
 * address actually connected to (not a lookup made at creation) also defeats DNS rebinding.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    if (!privateTargetsAllowed()) {
      const refused = list.find((entry) => isNonPublicAddress(entry.address));
      if (refused) {
        return callback(
          new NonPublicAddressError(`${hostname} resolves to non-public address ${refused.address}`),
          '',
          0,
        );
      }
    }
    if (options.all) return (callback as unknown as (err: null, all: dns.LookupAddress[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    callback(null, first.address, first.family);
  });
};
