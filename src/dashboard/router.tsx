import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** The app's routes are paths under /dashboard; a small history router instead of a dependency. */
export const BASE = '/dashboard';

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : `${BASE}${to === '/' ? '' : to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
  window.scrollTo(0, 0);
}

/** The current path below /dashboard (`/customers/cus_1`) and query. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const read = () => ({
    path: location.pathname.slice(BASE.length) || '/',
    search: new URLSearchParams(location.search),
  });
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const update = () => setCurrent(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return current;
}

export function Link({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const href = `${BASE}${to === '/' ? '' : to}`;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={href} onClick={onClick} />;
}
