// Tickets for URLs: scoped to one purpose and camera (or job), valid 5 minutes, shared by the nodes of a cluster through
// the cluster token, worthless to anything else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessTickets, TICKET_TTL_MS } from '../../src/http/access-tickets.js';

const HOLDER = { name: 'wall', role: 'viewer' as const };

test('a ticket opens its own scope until it expires, and nothing else', () => {
  let now = Date.UTC(2026, 10, 28, 12);
  const tickets = new AccessTickets(() => 'cluster-secret', () => now);
  const { ticket, expiresAtMs } = tickets.mint({ purpose: 'live', camera: 'gate' }, HOLDER);
  assert.equal(expiresAtMs, now + TICKET_TTL_MS);
  assert.deepEqual(tickets.verify(ticket, { purpose: 'live', camera: 'gate' }), HOLDER);
  assert.equal(tickets.verify(ticket, { purpose: 'live', camera: 'yard' }), undefined, 'another camera');
  assert.equal(tickets.verify(ticket, { purpose: 'media', camera: 'gate' }), undefined, 'another purpose');
  assert.equal(tickets.verify(ticket, { purpose: 'download', job: 'gate' }), undefined);
  assert.equal(tickets.verify(`${ticket}x`, { purpose: 'live', camera: 'gate' }), undefined, 'altered');
  assert.equal(tickets.verify('v1.e30.', { purpose: 'live', camera: 'gate' }), undefined);
  assert.equal(tickets.verify('', { purpose: 'live', camera: 'gate' }), undefined);
  now += TICKET_TTL_MS - 1000;
  assert.deepEqual(tickets.verify(ticket, { purpose: 'live', camera: 'gate' }), HOLDER, 'still valid just before the end');
  now += 1000;
  assert.equal(tickets.verify(ticket, { purpose: 'live', camera: 'gate' }), undefined, 'expired');
});

test('nodes sharing the cluster token accept each other’s tickets; another token or no shared token does not', () => {
  const now = (): number => Date.UTC(2026, 10, 28, 12);
  let shared = 'cluster-secret';
  const nodeA = new AccessTickets(() => shared, now);
  const nodeB = new AccessTickets(() => 'cluster-secret', now);
  const { ticket } = nodeA.mint({ purpose: 'media', camera: 'gate' }, HOLDER);
  assert.deepEqual(nodeB.verify(ticket, { purpose: 'media', camera: 'gate' }), HOLDER);
  assert.equal(new AccessTickets(() => 'another-cluster', now).verify(ticket, { purpose: 'media', camera: 'gate' }), undefined);
  // Without a cluster token each process signs with its own key.
  const loneA = new AccessTickets(() => undefined, now);
  const loneB = new AccessTickets(() => undefined, now);
  const lone = loneA.mint({ purpose: 'download', job: 'j1' }, HOLDER).ticket;
  assert.deepEqual(loneA.verify(lone, { purpose: 'download', job: 'j1' }), HOLDER);
  assert.equal(loneB.verify(lone, { purpose: 'download', job: 'j1' }), undefined);
  // A rotated cluster token ends the tickets signed with the old one (they live minutes anyway).
  shared = 'rotated';
  assert.equal(nodeA.verify(ticket, { purpose: 'media', camera: 'gate' }), undefined);
});
