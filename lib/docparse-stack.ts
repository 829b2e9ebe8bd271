import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DocumentStorage } from './constructs/document-storage.js';

/** The service's stack. Storage is defined here; the API, pipeline and queues build on it. */
export class DocparseStack extends Stack {
  readonly storage: DocumentStorage;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.storage = new DocumentStorage(this, 'Storage');
  }
}
