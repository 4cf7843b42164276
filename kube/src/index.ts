// @vigil/kube: the Kubernetes API as Vigil's operator and cluster-mode recorder use it — a JSON client with timeouts, informers, resource names.
export * from './client.js';
export * from './clock.js';
export * from './informer.js';
export * from './resources.js';
export * from './types.js';
export * from './membership.js';
