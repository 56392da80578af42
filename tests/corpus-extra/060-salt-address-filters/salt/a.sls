{%- set addrs = ['192.168.0.1', '10.0.0.1/255.255.255.0', 'fe80::1%eth0/64', '2001:DB8:0:0:1:0:0:1', '::ffff:1.2.3.4', 'not-an-ip', 8, '100.64.1.1', 'fd00::1', '8.8.8.8', 'fec0::1', '4000::1', '127.0.0.1/8', '::1/64', '::1', '0.0.0.0/8', '::/128'] %}
{%- for h in '192.168.10.0/29'|network_hosts %}
host-{{ h }}:
  test.nop:
    - size: {{ '192.168.10.0/29'|network_size }}
{%- endfor %}
{%- for net in ['10.1.0.9/30', 'fe80::8/126', '172.16.0.1/31', '172.16.0.1'] %}
net-{{ loop.index }}:
  test.nop:
    - hosts: {{ net|network_hosts|json }}
    - host: {{ net|ip_host|json }}
    - size: {{ net|network_size }}
{%- endfor %}
lists:
  test.nop:
    - all: {{ addrs|ipaddr|json }}
    - v4: {{ addrs|ipv4|json }}
    - v6: {{ addrs|ipv6|json }}
    - private: {{ addrs|ipaddr('private')|json }}
    - public: {{ addrs|ipaddr('public')|json }}
    - global: {{ addrs|ipaddr(options='global')|json }}
    - reserved: {{ addrs|ipaddr('reserved')|json }}
    - site_local: {{ addrs|ipaddr('site-local')|json }}
    - loopback: {{ addrs|ipaddr('loopback')|json }}
    - unspecified: {{ addrs|ipaddr('unspecified')|json }}
    - link_local: {{ addrs|ipaddr('link-local,multicast')|json }}
    - hosts: {{ ['192.168.0.1/24', '10.0.0.1']|ip_host|json }}
    - hosts6: {{ ['192.168.0.1/24', 'fe80::1']|ip_host(version=6)|json }}
    - sizes: {{ ['192.168.0.0/30', '10.0.0.0/31', 'fe80::/120']|network_size|json }}
    - wrapped: {{ ['fe80::1', '1.2.3.4', 'x', '::ffff:1.2.3.4']|ipwrap|json }}
    - empty: {{ ['x']|ipaddr|json }}
scalars:
  test.nop:
    - a: {{ '192.168.0.1'|ipaddr|json }}
    - b: {{ '10.0.0.1/255.255.255.0'|ipaddr|json }}
    - c: {{ 'fe80::1'|ipv4|json }}
    - d: {{ '2001:DB8::1'|ipv6|json }}
    - e: {{ 'foo'|ipaddr|json }}
    - f: {{ 5|ipaddr|json }}
    - g: {{ '127.0.0.1'|ipaddr('loopback')|json }}
    - h: {{ '10.0.0.1'|ipaddr('loopback')|json }}
    - i: {{ '192.168.0.1'|ip_host }}
    - j: {{ '192.168.0.1/24'|network_size(None, 6)|json }}
    - k: {{ 'fe80::1'|ipwrap }}
    - l: {{ 'x'|ipwrap }}
    - m: {{ 'fe80::/64'|network_size }}
    - n: {{ '10.0.0.1/8'|is_ip('private') }}
    - o: {{ '8.8.8.8'|is_ipv4(options='public') }}
