import { useState } from 'react';

/** An id in code type with a button that copies it; the outcome is announced (role="status"). */
export function CopyId({ id }: { id: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      setState('copied');
    } catch {
      // No clipboard (an insecure origin, or permission refused): the id stays selectable.
      setState('failed');
    }
  };
  return (
    <span className="copy-id">
      <code>{id}</code>
      <button type="button" className="secondary copy" onClick={() => void copy()} aria-label={`Copy ${id}`}>
        Copy
      </button>
      <span role="status" className="muted small">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select the id to copy it' : ''}
      </span>
    </span>
  );
}
