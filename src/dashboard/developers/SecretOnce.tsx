import { useState, type ReactNode } from 'react';

/**
 * A secret the API answers once (an API key, a signing secret): shown until "Done", then gone from the
 * page; nothing else ever shows it again, so the reader is told to copy it now.
 */
export function SecretOnce({
  title,
  secret,
  children,
  onDone,
}: {
  title: string;
  secret: string;
  children?: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('Copied to the clipboard.'),
      () => setCopied('Copying failed: select the text and copy it.'),
    );
  return (
    <section className="card secret-once" aria-labelledby="secret-title">
      <h2 id="secret-title">{title}</h2>
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      {children}
      <div className="secret-row">
        <input
          readOnly
          value={secret}
          aria-label={title}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="notice small" role="status">
        {copied}
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
}
