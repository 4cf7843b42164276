// Validating admission: what a plugin sees of a write (after defaulting and validation, before storage) and how it refuses or warns.
import type { KubeObject, ResourceType, UserInfo } from './types.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE';
  type: ResourceType;
  /** The object about to be stored (defaulted and validated). */
  object: KubeObject;
  /** The stored object an update replaces. */
  oldObject: KubeObject | undefined;
  subresource: string | undefined;
  /** The name the request carried: '' for a create with generateName, as the real server's attributes have it. */
  name: string;
  namespace: string | undefined;
  /** Warning headers for the answer. */
  warnings: string[];
  /** The authenticated caller (plugins that authorize, as certificates/approval does). */
  user?: UserInfo;
}

/** A validating admission plugin: throws a KubeError to refuse the write, may add warnings. */
export interface ValidatingAdmission {
  validate(attributes: AdmissionAttributes): void;
}
