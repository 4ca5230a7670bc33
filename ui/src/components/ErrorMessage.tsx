type Props = { message: string | null | undefined; className?: string };

/** An error from the backend or a form, shown inline. */
export function ErrorMessage({ message, className }: Props) {
  if (!message) return null;
  return (
    <p className={`error-message ${className ?? ""}`} role="alert" data-testid="error-message">
      {message}
    </p>
  );
}
