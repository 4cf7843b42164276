// @kubernetes/client-node for the test support and the tests: the classes and functions they call, loaded from the one
// bundled file that testing's build makes (scripts/bundle-client-node.mjs) instead of the package's 2,800 modules
// (about 0.8 CPU-seconds less in every test process that uses it). A build that made no bundle (tsc alone) gets the
// package. Every runtime use of client-node in a test process goes through here, so the process has one copy of its
// classes; type-only imports may name the package itself (they vanish from the compiled code).
import type * as ClientNode from '@kubernetes/client-node';

const BUNDLE = new URL('../vendor/client-node.js', import.meta.url).href;

async function loadClientNode(): Promise<typeof ClientNode> {
  try {
    return (await import(BUNDLE)) as typeof ClientNode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return import('@kubernetes/client-node');
  }
}

const clientNode = await loadClientNode();

export const { AppsV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, RbacAuthorizationV1Api, makeInformer, setHeaderOptions } = clientNode;
export type AppsV1Api = ClientNode.AppsV1Api;
export type CoordinationV1Api = ClientNode.CoordinationV1Api;
export type CoreV1Api = ClientNode.CoreV1Api;
export type CustomObjectsApi = ClientNode.CustomObjectsApi;
export type KubeConfig = ClientNode.KubeConfig;
export type PatchStrategy = ClientNode.PatchStrategy;
export type RbacAuthorizationV1Api = ClientNode.RbacAuthorizationV1Api;
