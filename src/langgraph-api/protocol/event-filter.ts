import { inferChannel, isPrefixMatch, isSupportedChannel } from '@langchain/langgraph/stream';

import type { EventEnvelope, EventFilter } from './protocol-types';

/** Channels a filter may name: the protocol's own and `custom:<name>`. */
export function supportedChannel(channel: string): boolean {
  return isSupportedChannel(channel);
}

/**
 * Whether an event goes to a stream asking for `filter` (the reference's rule): its channel (a named custom
 * channel also matches `custom`), and a namespace under one of the prefixes, at most `depth` below it.
 */
export function matchesFilter(filter: EventFilter, event: EventEnvelope): boolean {
  if (filter.since != null && event.seq <= filter.since) return false;
  const channel = inferChannel(event as never);
  if (channel == null) return false;
  const channels = filter.channels;
  if (!channels.includes(channel) && !(channel.startsWith('custom:') && channels.includes('custom'))) return false;
  if (!filter.namespaces?.length) return true;
  return filter.namespaces.some(
    (prefix) =>
      isPrefixMatch(event.params.namespace, prefix) &&
      (filter.depth == null || event.params.namespace.length - prefix.length <= filter.depth),
  );
}
