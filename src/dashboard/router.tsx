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

/** A path segment as written, when it is not valid percent-encoding (the page then says what is unknown). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The parameters of `path` when it matches `pattern` (`/customers/:id` matches `/customers/cus_1` with
 * `{ id: 'cus_1' }`, decoded), null otherwise; a trailing slash is no part of either.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const segment = have[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = safeDecode(segment);
    else if (part !== segment) return null;
  }
  return params;
}

/** A list's filters and page as its address keeps them, so a filtered list can be shared and reloaded. */
export type ListFilters<K extends string> = Record<K, string> & { page: number };

/** The named filters of the address (empty when absent) and its page (1 unless a positive number). */
export function listFilters<K extends string>(search: URLSearchParams, names: readonly K[]): ListFilters<K> {
  const filters = { page: Math.max(1, Number(search.get('page')) || 1) } as ListFilters<K>;
  for (const name of names) (filters as Record<string, string | number>)[name] = search.get(name) ?? '';
  return filters;
}

/** `value` when it is one of `options` (a status the API knows), else undefined: the API's default. */
export function oneOf<Option extends string>(value: string, options: readonly Option[]): Option | undefined {
  return (options as readonly string[]).includes(value) ? (value as Option) : undefined;
}

/** The filters as query parameters: empty ones and page 1 left out (the API's defaults). */
export function listParams(filters: Record<string, string | number>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value === '' || (name === 'page' && Number(value) <= 1)) continue;
    params.set(name, String(value));
  }
  return params;
}

/** The list at `path` with these filters: `/invoices?status=open&page=2`. */
export function listAddress(path: string, filters: Record<string, string | number>): string {
  const suffix = listParams(filters).toString();
  return `${path}${suffix ? `?${suffix}` : ''}`;
}
