type Props = { tint: string; size?: "small" | "large" };

export function TintDot({ tint, size = "small" }: Props) {
  return <span className={`tint-dot tint-dot--${size}`} style={{ backgroundColor: tint }} aria-hidden="true" />;
}
