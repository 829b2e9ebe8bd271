/**
 * Worker thread entry of {@link OfficeWorkerPool}: converts office documents (docx, pptx, xlsx,
 * xls, HTML, Markdown) off the server's main thread, so that a large workbook or Word file keeps
 * this thread busy (and its heap full) instead of the server's.
 */
import { parentPort } from 'node:worker_threads';
import { AppError, UnsupportedDocumentError } from '../../core/domain/errors.js';
import { serializeError } from '../pdf/pdf-worker-protocol.js';
import { convertDocument, loadConverters } from './convert-document.js';
import type {
  OfficeWorkerMemory,
  OfficeWorkerReady,
  OfficeWorkerReply,
  OfficeWorkerRequest,
} from './office-worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('office-worker.ts runs as a worker thread');

/** The memory this worker holds now (see {@link OfficeWorkerMemory}). */
const memory = (): OfficeWorkerMemory => {
  const usage = process.memoryUsage();
  return { heldBytes: usage.heapTotal + usage.external };
};

const handle = async (request: OfficeWorkerRequest): Promise<void> => {
  const { id, format } = request;
  let reply: OfficeWorkerReply;
  try {
    const document = await convertDocument(request.bytes, format);
    reply = { id, status: 'ok', document, memory: memory() };
  } catch (error) {
    // A reader's own failure on damaged input (a TypeError deep in a library) is the file's.
    const failure =
      error instanceof AppError
        ? error
        : new UnsupportedDocumentError(
            `the ${format} document cannot be read: ${error instanceof Error ? error.message : String(error)}`,
          );
    reply = { id, status: 'error', error: serializeError(failure), memory: memory() };
  }
  try {
    port.postMessage(reply);
  } catch (error) {
    // Not structured-clone-able: a converter bug, not the document's fault.
    const message = `the converted document could not be sent back: ${error instanceof Error ? error.message : String(error)}`;
    port.postMessage({
      id,
      status: 'error',
      error: { name: 'Error', message },
      memory: memory(),
    } satisfies OfficeWorkerReply);
  }
};

port.on('message', (request: OfficeWorkerRequest) => {
  void handle(request);
});
await loadConverters();
port.postMessage({ status: 'ready' } satisfies OfficeWorkerReady);
