import { describe, expect, it } from 'vitest';
import { INCOMING_PREFIX } from '../../../../../functions/core/app/ingest-object.js';
import { uploadKeys } from '../../../../../functions/core/app/uploads.js';
import {
  EXPIRING_PREFIXES,
  OBJECT_PREFIXES,
  workKeys,
} from '../../../../../functions/core/domain/object-keys.js';

describe('the object key layout', () => {
  it('puts every key of a request under its named prefix', () => {
    // Act
    const keys = {
      upload: workKeys.upload('req_1'),
      estimate: workKeys.estimate('est_1'),
      inspection: workKeys.inspection('req_1'),
      page: workKeys.page('req_1', 3),
      resultJson: workKeys.resultJson('tenant-a', 'req_1'),
      resultMarkdown: workKeys.resultMarkdown('tenant-a', 'req_1'),
      slotDocument: uploadKeys.document('tenant-a', 'upl_1'),
      slot: uploadKeys.slot('tenant-a', 'upl_1'),
    };
    // Assert
    expect(keys).toEqual({
      upload: `${OBJECT_PREFIXES.uploads}req_1/document`,
      estimate: `${OBJECT_PREFIXES.estimates}est_1/document`,
      inspection: `${OBJECT_PREFIXES.work}req_1/inspection.json`,
      page: `${OBJECT_PREFIXES.work}req_1/pages/0003.json`,
      resultJson: `${OBJECT_PREFIXES.results}tenant-a/req_1.json`,
      resultMarkdown: `${OBJECT_PREFIXES.results}tenant-a/req_1.md`,
      slotDocument: `${OBJECT_PREFIXES.uploadSlots}tenant-a/upl_1/document`,
      slot: `${OBJECT_PREFIXES.uploadSlots}tenant-a/upl_1/slot.json`,
    });
    expect(INCOMING_PREFIX).toBe(OBJECT_PREFIXES.incoming);
  });

  it('expires every prefix that holds documents, slots and estimates under uploads/', () => {
    // Act
    const covered = Object.values(OBJECT_PREFIXES).filter((prefix) =>
      EXPIRING_PREFIXES.some((expiring) => prefix.startsWith(expiring)),
    );
    // Assert
    expect(covered).toEqual(Object.values(OBJECT_PREFIXES));
  });
});
