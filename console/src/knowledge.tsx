import { useEffect, useState } from 'preact/hooks';

import { api, type Contract, type ContractSummary, type DocumentDetail, type KnowledgeDocument, upload } from './api';
import { plural } from './format';

type Report = (err: unknown) => void;

function ContractView({ contract }: { contract: Contract }) {
  return (
    <section class="contract" data-contract={contract.contract_id}>
      <h3>
        {contract.title} <span class="muted">({contract.kind})</span>
      </h3>
      <h4>Articles ({contract.articles.length})</h4>
      <ol class="articles">
        {contract.articles.map((a) => (
          <li key={a.number}>
            <b>{a.number}</b> {a.title ?? ''} <span class="muted">{plural(a.clauses.length, 'clause')}</span>
          </li>
        ))}
      </ol>
      {contract.exhibits.length > 0 && (
        <>
          <h4>Exhibits ({contract.exhibits.length})</h4>
          <ul class="exhibits">
            {contract.exhibits.map((e) => (
              <li key={e.number}>
                <b>{e.number}</b> {e.title ?? ''}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function DocumentView({ doc }: { doc: DocumentDetail }) {
  return (
    <section class="document" data-document={doc.document_id}>
      <h3>{doc.title}</h3>
      <ol class="chunks">
        {doc.chunks.map((c) => (
          <li key={c.index}>
            {c.heading && <b>{c.heading}</b>}
            <div class="chunk-text">{c.content}</div>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Contracts (upload, list, parsed articles and exhibits) and knowledge-base documents (add, list, chunks). */
export function KnowledgeTab({ onError }: { onError: Report }) {
  const [contracts, setContracts] = useState<ContractSummary[]>([]);
  const [selected, setSelected] = useState<Contract>();
  const [documents, setDocuments] = useState<KnowledgeDocument[]>([]);
  const [openDoc, setOpenDoc] = useState<DocumentDetail>();
  const showDocument = (id: string) => api<DocumentDetail>('GET', `/v1/documents/${id}`).then(setOpenDoc, onError);
  const [busy, setBusy] = useState(false);

  const refresh = () =>
    Promise.all([
      api<{ contracts: typeof contracts }>('GET', '/v1/contracts').then((r) => setContracts(r.contracts)),
      api<{ documents: KnowledgeDocument[] }>('GET', '/v1/documents').then((r) => setDocuments(r.documents)),
    ]).catch(onError);
  useEffect(() => void refresh(), []);

  const uploadContract = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    try {
      setSelected(await upload<Contract>('/v1/contracts', new FormData(form)));
      form.reset();
      await refresh();
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };

  const addDocument = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
    try {
      const added = await api<KnowledgeDocument>('POST', '/v1/documents', {
        title: data.title,
        content: data.content,
        ...(data.source ? { source: data.source } : {}),
      });
      form.reset();
      await Promise.all([refresh(), showDocument(added.document_id)]);
    } catch (err) {
      onError(err);
    }
  };

  return (
    <div class="knowledge">
      <section>
        <h2>Contracts</h2>
        <form class="upload-contract" onSubmit={uploadContract}>
          <input name="title" placeholder="title" required />
          <select name="kind">
            <option value="user">user</option>
            <option value="standard">standard</option>
          </select>
          <input name="file" type="file" accept=".txt,.md,text/*" required />
          <button type="submit" disabled={busy}>
            Upload
          </button>
        </form>
        <ul class="contracts">
          {contracts.map((c) => (
            <li key={c.contract_id}>
              <button
                type="button"
                class="link"
                onClick={() => api<Contract>('GET', `/v1/contracts/${c.contract_id}`).then(setSelected, onError)}
              >
                {c.title}
              </button>{' '}
              <span class="muted">{c.kind}</span>
            </li>
          ))}
        </ul>
        {selected && <ContractView contract={selected} />}
      </section>
      <section>
        <h2>Knowledge documents</h2>
        <form class="add-document" onSubmit={addDocument}>
          <input name="title" placeholder="title" required />
          <input name="source" placeholder="source (optional)" />
          <textarea name="content" placeholder="text or markdown" rows={4} required />
          <button type="submit">Add</button>
        </form>
        <ul class="documents">
          {documents.map((d) => (
            <li key={d.document_id}>
              <button type="button" class="link" onClick={() => void showDocument(d.document_id)}>
                {d.title}
              </button>{' '}
              <span class="muted">
                {plural(d.chunks, 'chunk')}
                {d.source ? ` · ${d.source}` : ''}
              </span>
            </li>
          ))}
        </ul>
        {openDoc && <DocumentView doc={openDoc} />}
      </section>
    </div>
  );
}
