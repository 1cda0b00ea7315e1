import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Form, type FormProps } from './form';

type DialogProps = Omit<FormProps, 'layout' | 'heading' | 'onCancel' | 'label'> & {
  title: string;
  /** What the dialog asks, under its title. */
  message?: ReactNode;
  onClose: () => void;
};

/**
 * A form in a modal dialog (the browser's own <dialog>, so focus and Escape behave): the form pattern's fields,
 * refusals and submit-once, with Cancel closing it. The API's refusal keeps it open, shown in it.
 */
export function Dialog({ title, message, onClose, ...form }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="card dialog" aria-labelledby={titleId} onClose={onClose}>
      <Form
        {...form}
        layout="dialog"
        onCancel={onClose}
        heading={
          <>
            <h2 id={titleId}>{title}</h2>
            {message !== undefined && <p>{message}</p>}
          </>
        }
      />
    </dialog>
  );
}

/** Asks before acting: yes (`confirm`, red when it cannot be undone) or "Keep it as it is". */
export function Confirm(props: {
  /** What the dialog asks for besides yes or no (an amount). */
  children?: ReactNode;
  title: string;
  message: string;
  confirm: string;
  danger: boolean;
  action: { isPending: boolean; error?: unknown };
  /** The confirm button stays disabled (what the dialog asks for is not valid yet). */
  disabled?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={props.title}
      message={props.message}
      submit={props.confirm}
      submitClass={props.danger ? 'danger' : undefined}
      cancelLabel="Keep it as it is"
      action={{ isPending: props.action.isPending, error: props.action.error }}
      disabled={props.disabled}
      onSubmit={props.onConfirm}
      onClose={props.onClose}
    >
      {props.children}
    </Dialog>
  );
}
