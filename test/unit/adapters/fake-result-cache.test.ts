import { describeResultCacheContract } from '../../contract/result-cache.contract.js';
import { InMemoryResultCache } from '../../support/fake-result-cache.js';

describeResultCacheContract('InMemoryResultCache', () => new InMemoryResultCache());
