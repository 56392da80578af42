nginx:
  worker_processes: 4
  sites:
    shop:
      server_name: shop.example.com
      root: /srv/shop/public
      port: 8080
app:
  name: shop
  port: 8080
