/** A small shield, for what Clawboo's sandbox did. */
export function ShieldIcon({ className }: { className?: string }) {
  return (
    <svg
      className={className}
      width="14"
      height="14"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d="M8 1.5 2.75 3.5v4c0 3.2 2.2 5.8 5.25 7 3.05-1.2 5.25-3.8 5.25-7v-4L8 1.5Z" />
      <path d="M6.2 6.2l3.6 3.6M9.8 6.2 6.2 9.8" strokeLinecap="round" />
    </svg>
  );
}
