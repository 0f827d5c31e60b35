import { useEffect, useState } from 'preact/hooks';

import { api, type ContractSummary } from './api';

/** Agents that answer about one uploaded contract: each turn sends its `contract_id`. */
export const needsContract = (agent: string) => agent === 'contract-qa';

function ContractPicker(props: { value: string; onChange: (id: string) => void; onUpload: () => void; onError: (err: unknown) => void }) {
  const [contracts, setContracts] = useState<ContractSummary[]>();
  useEffect(() => {
    api<{ contracts: ContractSummary[] }>('GET', '/v1/contracts').then((r) => setContracts(r.contracts), props.onError);
  }, []);
  if (contracts?.length === 0) {
    return (
      <p class="contract-picker muted">
        No contract yet:{' '}
        <button type="button" class="link" onClick={props.onUpload}>
          upload one
        </button>{' '}
        to ask about it.
      </p>
    );
  }
  return (
    <label class="contract-picker">
      Contract{' '}
      <select name="contract_id" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">choose a contract…</option>
        {(contracts ?? []).map((c) => (
          <option key={c.contract_id} value={c.contract_id}>
            {c.title} ({c.kind})
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The message box: Enter sends, Shift+Enter breaks the line (and Enter that ends an IME composition, e.g.
 * Korean input, only commits the text). For an agent that needs a contract, a picker above it.
 */
export function Composer(props: {
  agent: string;
  busy: boolean;
  contractId: string;
  onContract: (id: string) => void;
  onUpload: () => void;
  onError: (err: unknown) => void;
  /** resolves true when the message was sent (then the box is cleared) */
  onSend: (message: string) => Promise<boolean>;
}) {
  const [text, setText] = useState('');
  const contract = needsContract(props.agent);
  const ready = !!props.agent && !props.busy && (!contract || !!props.contractId);
  const submit = async () => {
    const message = text.trim();
    if (message && ready && (await props.onSend(message))) setText('');
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {contract && (
        <ContractPicker value={props.contractId} onChange={props.onContract} onUpload={props.onUpload} onError={props.onError} />
      )}
      <div class="composer-row">
        <textarea
          name="message"
          rows={2}
          placeholder="Message (Enter sends, Shift+Enter starts a new line)"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
            e.preventDefault();
            void submit();
          }}
        />
        <button type="submit" disabled={!ready}>
          {props.busy ? 'Running…' : 'Send'}
        </button>
      </div>
    </form>
  );
}
