import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { navigate, useLocation } from '../router';
import { Empty, Failure, Loading, Pager } from '../components/common';
import { NewProduct, ProductCard } from './Products';
import { TaxRates } from './TaxRates';
import { Coupons } from './Coupons';

/** GET /products takes at most 50 a page (spec, "Limits"). */
const TAKE = 10;

export function Catalog() {
  const { search } = useLocation();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const products = useQuery({
    queryKey: ['products', { page }],
    queryFn: () => api.GET('/products', { params: { query: { page, take: TAKE } } }),
    placeholderData: keepPreviousData,
  });
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="title-row">
        <h1>Catalog</h1>
        {!creating && (
          <button type="button" onClick={() => setCreating(true)}>
            New product
          </button>
        )}
      </div>
      {creating && <NewProduct onDone={() => setCreating(false)} />}

      <h2>Products</h2>
      {products.isPending ? (
        <Loading />
      ) : products.isError ? (
        <Failure error={products.error} />
      ) : products.data.data.length === 0 ? (
        <Empty>
          <p>No products yet. A product has a name and its first price.</p>
        </Empty>
      ) : (
        <ul className="catalog-products">
          {products.data.data.map((product) => (
            <ProductCard key={product.id} product={product} />
          ))}
        </ul>
      )}
      {products.data && (
        <Pager
          page={page}
          hasNext={page < products.data.meta.pagesTotal}
          onPage={(next) => navigate(next > 1 ? `/catalog?page=${next}` : '/catalog', { replace: true })}
          label={`Page ${page} of ${Math.max(1, products.data.meta.pagesTotal)}`}
        />
      )}

      <TaxRates />
      <Coupons />
    </>
  );
}
