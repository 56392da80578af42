//! The compiled-in schema files, one per Salt 3008.5 state function
//! (generated with them by `tests/check_schemas.rs`; do not edit).

/// Function name → schema file text, sorted by name.
pub(super) const SCHEMAS: &[(&str, &str)] = &[
    ("acl.absent", include_str!("schemas/acl.absent.yaml")),
    (
        "acl.list_absent",
        include_str!("schemas/acl.list_absent.yaml"),
    ),
    (
        "acl.list_present",
        include_str!("schemas/acl.list_present.yaml"),
    ),
    ("acl.present", include_str!("schemas/acl.present.yaml")),
    ("alias.absent", include_str!("schemas/alias.absent.yaml")),
    ("alias.present", include_str!("schemas/alias.present.yaml")),
    ("ansible.call", include_str!("schemas/ansible.call.yaml")),
    (
        "ansible.playbooks",
        include_str!("schemas/ansible.playbooks.yaml"),
    ),
    (
        "apache.configfile",
        include_str!("schemas/apache.configfile.yaml"),
    ),
    (
        "archive.extracted",
        include_str!("schemas/archive.extracted.yaml"),
    ),
    ("at.absent", include_str!("schemas/at.absent.yaml")),
    ("at.mod_watch", include_str!("schemas/at.mod_watch.yaml")),
    ("at.present", include_str!("schemas/at.present.yaml")),
    ("at.watch", include_str!("schemas/at.watch.yaml")),
    ("beacon.absent", include_str!("schemas/beacon.absent.yaml")),
    (
        "beacon.disabled",
        include_str!("schemas/beacon.disabled.yaml"),
    ),
    (
        "beacon.enabled",
        include_str!("schemas/beacon.enabled.yaml"),
    ),
    (
        "beacon.present",
        include_str!("schemas/beacon.present.yaml"),
    ),
    (
        "blockdev.formatted",
        include_str!("schemas/blockdev.formatted.yaml"),
    ),
    (
        "blockdev.tuned",
        include_str!("schemas/blockdev.tuned.yaml"),
    ),
    ("cloud.absent", include_str!("schemas/cloud.absent.yaml")),
    ("cloud.present", include_str!("schemas/cloud.present.yaml")),
    ("cloud.profile", include_str!("schemas/cloud.profile.yaml")),
    (
        "cloud.volume_absent",
        include_str!("schemas/cloud.volume_absent.yaml"),
    ),
    (
        "cloud.volume_attached",
        include_str!("schemas/cloud.volume_attached.yaml"),
    ),
    (
        "cloud.volume_detached",
        include_str!("schemas/cloud.volume_detached.yaml"),
    ),
    (
        "cloud.volume_present",
        include_str!("schemas/cloud.volume_present.yaml"),
    ),
    ("cmd.call", include_str!("schemas/cmd.call.yaml")),
    ("cmd.mod_watch", include_str!("schemas/cmd.mod_watch.yaml")),
    ("cmd.run", include_str!("schemas/cmd.run.yaml")),
    ("cmd.script", include_str!("schemas/cmd.script.yaml")),
    ("cmd.wait", include_str!("schemas/cmd.wait.yaml")),
    ("cmd.wait_call", include_str!("schemas/cmd.wait_call.yaml")),
    (
        "cmd.wait_script",
        include_str!("schemas/cmd.wait_script.yaml"),
    ),
    ("cmd.watch", include_str!("schemas/cmd.watch.yaml")),
    ("cron.absent", include_str!("schemas/cron.absent.yaml")),
    (
        "cron.env_absent",
        include_str!("schemas/cron.env_absent.yaml"),
    ),
    (
        "cron.env_present",
        include_str!("schemas/cron.env_present.yaml"),
    ),
    ("cron.file", include_str!("schemas/cron.file.yaml")),
    ("cron.present", include_str!("schemas/cron.present.yaml")),
    ("debconf.set", include_str!("schemas/debconf.set.yaml")),
    (
        "debconf.set_file",
        include_str!("schemas/debconf.set_file.yaml"),
    ),
    ("disk.status", include_str!("schemas/disk.status.yaml")),
    (
        "environ.setenv",
        include_str!("schemas/environ.setenv.yaml"),
    ),
    (
        "event.fire_master",
        include_str!("schemas/event.fire_master.yaml"),
    ),
    (
        "event.mod_watch",
        include_str!("schemas/event.mod_watch.yaml"),
    ),
    ("event.send", include_str!("schemas/event.send.yaml")),
    ("event.wait", include_str!("schemas/event.wait.yaml")),
    ("file.absent", include_str!("schemas/file.absent.yaml")),
    (
        "file.accumulated",
        include_str!("schemas/file.accumulated.yaml"),
    ),
    ("file.append", include_str!("schemas/file.append.yaml")),
    (
        "file.blockreplace",
        include_str!("schemas/file.blockreplace.yaml"),
    ),
    ("file.cached", include_str!("schemas/file.cached.yaml")),
    ("file.comment", include_str!("schemas/file.comment.yaml")),
    ("file.copy", include_str!("schemas/file.copy.yaml")),
    ("file.decode", include_str!("schemas/file.decode.yaml")),
    (
        "file.directory",
        include_str!("schemas/file.directory.yaml"),
    ),
    ("file.exists", include_str!("schemas/file.exists.yaml")),
    ("file.hardlink", include_str!("schemas/file.hardlink.yaml")),
    ("file.keyvalue", include_str!("schemas/file.keyvalue.yaml")),
    ("file.line", include_str!("schemas/file.line.yaml")),
    ("file.managed", include_str!("schemas/file.managed.yaml")),
    ("file.missing", include_str!("schemas/file.missing.yaml")),
    ("file.mknod", include_str!("schemas/file.mknod.yaml")),
    (
        "file.mod_beacon",
        include_str!("schemas/file.mod_beacon.yaml"),
    ),
    (
        "file.mod_run_check_cmd",
        include_str!("schemas/file.mod_run_check_cmd.yaml"),
    ),
    (
        "file.not_cached",
        include_str!("schemas/file.not_cached.yaml"),
    ),
    ("file.patch", include_str!("schemas/file.patch.yaml")),
    ("file.prepend", include_str!("schemas/file.prepend.yaml")),
    ("file.pruned", include_str!("schemas/file.pruned.yaml")),
    ("file.recurse", include_str!("schemas/file.recurse.yaml")),
    ("file.rename", include_str!("schemas/file.rename.yaml")),
    ("file.replace", include_str!("schemas/file.replace.yaml")),
    (
        "file.retention_schedule",
        include_str!("schemas/file.retention_schedule.yaml"),
    ),
    (
        "file.serialize",
        include_str!("schemas/file.serialize.yaml"),
    ),
    ("file.shortcut", include_str!("schemas/file.shortcut.yaml")),
    ("file.symlink", include_str!("schemas/file.symlink.yaml")),
    ("file.tidied", include_str!("schemas/file.tidied.yaml")),
    ("file.touch", include_str!("schemas/file.touch.yaml")),
    (
        "file.uncomment",
        include_str!("schemas/file.uncomment.yaml"),
    ),
    (
        "firewall.check",
        include_str!("schemas/firewall.check.yaml"),
    ),
    (
        "firewalld.present",
        include_str!("schemas/firewalld.present.yaml"),
    ),
    (
        "firewalld.service",
        include_str!("schemas/firewalld.service.yaml"),
    ),
    ("git.cloned", include_str!("schemas/git.cloned.yaml")),
    (
        "git.config_set",
        include_str!("schemas/git.config_set.yaml"),
    ),
    (
        "git.config_unset",
        include_str!("schemas/git.config_unset.yaml"),
    ),
    ("git.detached", include_str!("schemas/git.detached.yaml")),
    ("git.latest", include_str!("schemas/git.latest.yaml")),
    ("git.present", include_str!("schemas/git.present.yaml")),
    ("gpg.absent", include_str!("schemas/gpg.absent.yaml")),
    ("gpg.present", include_str!("schemas/gpg.present.yaml")),
    ("grains.absent", include_str!("schemas/grains.absent.yaml")),
    ("grains.append", include_str!("schemas/grains.append.yaml")),
    ("grains.exists", include_str!("schemas/grains.exists.yaml")),
    (
        "grains.list_absent",
        include_str!("schemas/grains.list_absent.yaml"),
    ),
    (
        "grains.list_present",
        include_str!("schemas/grains.list_present.yaml"),
    ),
    (
        "grains.present",
        include_str!("schemas/grains.present.yaml"),
    ),
    ("group.absent", include_str!("schemas/group.absent.yaml")),
    ("group.present", include_str!("schemas/group.present.yaml")),
    (
        "highstate_doc.note",
        include_str!("schemas/highstate_doc.note.yaml"),
    ),
    ("host.absent", include_str!("schemas/host.absent.yaml")),
    ("host.only", include_str!("schemas/host.only.yaml")),
    ("host.present", include_str!("schemas/host.present.yaml")),
    ("http.query", include_str!("schemas/http.query.yaml")),
    (
        "http.wait_for_successful_query",
        include_str!("schemas/http.wait_for_successful_query.yaml"),
    ),
    (
        "ini.options_absent",
        include_str!("schemas/ini.options_absent.yaml"),
    ),
    (
        "ini.options_present",
        include_str!("schemas/ini.options_present.yaml"),
    ),
    (
        "ini.sections_absent",
        include_str!("schemas/ini.sections_absent.yaml"),
    ),
    (
        "ini.sections_present",
        include_str!("schemas/ini.sections_present.yaml"),
    ),
    ("ipset.absent", include_str!("schemas/ipset.absent.yaml")),
    ("ipset.flush", include_str!("schemas/ipset.flush.yaml")),
    ("ipset.present", include_str!("schemas/ipset.present.yaml")),
    (
        "ipset.set_absent",
        include_str!("schemas/ipset.set_absent.yaml"),
    ),
    (
        "ipset.set_present",
        include_str!("schemas/ipset.set_present.yaml"),
    ),
    (
        "iptables.append",
        include_str!("schemas/iptables.append.yaml"),
    ),
    (
        "iptables.chain_absent",
        include_str!("schemas/iptables.chain_absent.yaml"),
    ),
    (
        "iptables.chain_present",
        include_str!("schemas/iptables.chain_present.yaml"),
    ),
    (
        "iptables.delete",
        include_str!("schemas/iptables.delete.yaml"),
    ),
    (
        "iptables.flush",
        include_str!("schemas/iptables.flush.yaml"),
    ),
    (
        "iptables.insert",
        include_str!("schemas/iptables.insert.yaml"),
    ),
    (
        "iptables.mod_aggregate",
        include_str!("schemas/iptables.mod_aggregate.yaml"),
    ),
    (
        "iptables.set_policy",
        include_str!("schemas/iptables.set_policy.yaml"),
    ),
    (
        "keyboard.system",
        include_str!("schemas/keyboard.system.yaml"),
    ),
    ("keyboard.xorg", include_str!("schemas/keyboard.xorg.yaml")),
    ("kmod.absent", include_str!("schemas/kmod.absent.yaml")),
    ("kmod.present", include_str!("schemas/kmod.present.yaml")),
    (
        "locale.present",
        include_str!("schemas/locale.present.yaml"),
    ),
    ("locale.system", include_str!("schemas/locale.system.yaml")),
    ("logrotate.set", include_str!("schemas/logrotate.set.yaml")),
    ("loop.until", include_str!("schemas/loop.until.yaml")),
    (
        "loop.until_no_eval",
        include_str!("schemas/loop.until_no_eval.yaml"),
    ),
    ("lvm.lv_absent", include_str!("schemas/lvm.lv_absent.yaml")),
    (
        "lvm.lv_present",
        include_str!("schemas/lvm.lv_present.yaml"),
    ),
    ("lvm.pv_absent", include_str!("schemas/lvm.pv_absent.yaml")),
    (
        "lvm.pv_present",
        include_str!("schemas/lvm.pv_present.yaml"),
    ),
    ("lvm.vg_absent", include_str!("schemas/lvm.vg_absent.yaml")),
    (
        "lvm.vg_present",
        include_str!("schemas/lvm.vg_present.yaml"),
    ),
    (
        "module.mod_watch",
        include_str!("schemas/module.mod_watch.yaml"),
    ),
    ("module.run", include_str!("schemas/module.run.yaml")),
    ("module.wait", include_str!("schemas/module.wait.yaml")),
    ("module.watch", include_str!("schemas/module.watch.yaml")),
    (
        "mount.fstab_absent",
        include_str!("schemas/mount.fstab_absent.yaml"),
    ),
    (
        "mount.fstab_present",
        include_str!("schemas/mount.fstab_present.yaml"),
    ),
    (
        "mount.mod_watch",
        include_str!("schemas/mount.mod_watch.yaml"),
    ),
    ("mount.mounted", include_str!("schemas/mount.mounted.yaml")),
    ("mount.swap", include_str!("schemas/mount.swap.yaml")),
    (
        "mount.unmounted",
        include_str!("schemas/mount.unmounted.yaml"),
    ),
    (
        "network.managed",
        include_str!("schemas/network.managed.yaml"),
    ),
    (
        "network.routes",
        include_str!("schemas/network.routes.yaml"),
    ),
    (
        "network.system",
        include_str!("schemas/network.system.yaml"),
    ),
    (
        "nftables.append",
        include_str!("schemas/nftables.append.yaml"),
    ),
    (
        "nftables.chain_absent",
        include_str!("schemas/nftables.chain_absent.yaml"),
    ),
    (
        "nftables.chain_present",
        include_str!("schemas/nftables.chain_present.yaml"),
    ),
    (
        "nftables.delete",
        include_str!("schemas/nftables.delete.yaml"),
    ),
    (
        "nftables.flush",
        include_str!("schemas/nftables.flush.yaml"),
    ),
    (
        "nftables.insert",
        include_str!("schemas/nftables.insert.yaml"),
    ),
    (
        "nftables.set_policy",
        include_str!("schemas/nftables.set_policy.yaml"),
    ),
    (
        "nftables.table_absent",
        include_str!("schemas/nftables.table_absent.yaml"),
    ),
    (
        "nftables.table_present",
        include_str!("schemas/nftables.table_present.yaml"),
    ),
    ("pip.installed", include_str!("schemas/pip.installed.yaml")),
    (
        "pip.pip_has_exceptions_mod",
        include_str!("schemas/pip.pip_has_exceptions_mod.yaml"),
    ),
    (
        "pip.pip_has_internal_exceptions_mod",
        include_str!("schemas/pip.pip_has_internal_exceptions_mod.yaml"),
    ),
    ("pip.purge_pip", include_str!("schemas/pip.purge_pip.yaml")),
    ("pip.removed", include_str!("schemas/pip.removed.yaml")),
    ("pip.uptodate", include_str!("schemas/pip.uptodate.yaml")),
    (
        "pkg.downloaded",
        include_str!("schemas/pkg.downloaded.yaml"),
    ),
    (
        "pkg.group_installed",
        include_str!("schemas/pkg.group_installed.yaml"),
    ),
    ("pkg.held", include_str!("schemas/pkg.held.yaml")),
    ("pkg.installed", include_str!("schemas/pkg.installed.yaml")),
    ("pkg.latest", include_str!("schemas/pkg.latest.yaml")),
    (
        "pkg.mod_aggregate",
        include_str!("schemas/pkg.mod_aggregate.yaml"),
    ),
    (
        "pkg.mod_beacon",
        include_str!("schemas/pkg.mod_beacon.yaml"),
    ),
    ("pkg.mod_init", include_str!("schemas/pkg.mod_init.yaml")),
    ("pkg.mod_watch", include_str!("schemas/pkg.mod_watch.yaml")),
    (
        "pkg.patch_downloaded",
        include_str!("schemas/pkg.patch_downloaded.yaml"),
    ),
    (
        "pkg.patch_installed",
        include_str!("schemas/pkg.patch_installed.yaml"),
    ),
    ("pkg.purged", include_str!("schemas/pkg.purged.yaml")),
    ("pkg.removed", include_str!("schemas/pkg.removed.yaml")),
    ("pkg.unheld", include_str!("schemas/pkg.unheld.yaml")),
    ("pkg.uptodate", include_str!("schemas/pkg.uptodate.yaml")),
    (
        "pkgbuild.built",
        include_str!("schemas/pkgbuild.built.yaml"),
    ),
    ("pkgbuild.repo", include_str!("schemas/pkgbuild.repo.yaml")),
    (
        "pkgng.update_packaging_site",
        include_str!("schemas/pkgng.update_packaging_site.yaml"),
    ),
    (
        "pkgrepo.absent",
        include_str!("schemas/pkgrepo.absent.yaml"),
    ),
    (
        "pkgrepo.managed",
        include_str!("schemas/pkgrepo.managed.yaml"),
    ),
    (
        "postgres_database.absent",
        include_str!("schemas/postgres_database.absent.yaml"),
    ),
    (
        "postgres_database.present",
        include_str!("schemas/postgres_database.present.yaml"),
    ),
    (
        "postgres_extension.absent",
        include_str!("schemas/postgres_extension.absent.yaml"),
    ),
    (
        "postgres_extension.present",
        include_str!("schemas/postgres_extension.present.yaml"),
    ),
    (
        "postgres_group.absent",
        include_str!("schemas/postgres_group.absent.yaml"),
    ),
    (
        "postgres_group.present",
        include_str!("schemas/postgres_group.present.yaml"),
    ),
    (
        "postgres_initdb.present",
        include_str!("schemas/postgres_initdb.present.yaml"),
    ),
    (
        "postgres_language.absent",
        include_str!("schemas/postgres_language.absent.yaml"),
    ),
    (
        "postgres_language.present",
        include_str!("schemas/postgres_language.present.yaml"),
    ),
    (
        "postgres_privileges.absent",
        include_str!("schemas/postgres_privileges.absent.yaml"),
    ),
    (
        "postgres_privileges.present",
        include_str!("schemas/postgres_privileges.present.yaml"),
    ),
    (
        "postgres_schema.absent",
        include_str!("schemas/postgres_schema.absent.yaml"),
    ),
    (
        "postgres_schema.present",
        include_str!("schemas/postgres_schema.present.yaml"),
    ),
    (
        "postgres_tablespace.absent",
        include_str!("schemas/postgres_tablespace.absent.yaml"),
    ),
    (
        "postgres_tablespace.present",
        include_str!("schemas/postgres_tablespace.present.yaml"),
    ),
    (
        "postgres_user.absent",
        include_str!("schemas/postgres_user.absent.yaml"),
    ),
    (
        "postgres_user.present",
        include_str!("schemas/postgres_user.present.yaml"),
    ),
    (
        "process.absent",
        include_str!("schemas/process.absent.yaml"),
    ),
    ("pyenv.absent", include_str!("schemas/pyenv.absent.yaml")),
    (
        "pyenv.install_pyenv",
        include_str!("schemas/pyenv.install_pyenv.yaml"),
    ),
    (
        "pyenv.installed",
        include_str!("schemas/pyenv.installed.yaml"),
    ),
    ("quota.mode", include_str!("schemas/quota.mode.yaml")),
    (
        "rabbitmq_cluster.join",
        include_str!("schemas/rabbitmq_cluster.join.yaml"),
    ),
    (
        "rabbitmq_cluster.joined",
        include_str!("schemas/rabbitmq_cluster.joined.yaml"),
    ),
    (
        "rabbitmq_plugin.disabled",
        include_str!("schemas/rabbitmq_plugin.disabled.yaml"),
    ),
    (
        "rabbitmq_plugin.enabled",
        include_str!("schemas/rabbitmq_plugin.enabled.yaml"),
    ),
    (
        "rabbitmq_policy.absent",
        include_str!("schemas/rabbitmq_policy.absent.yaml"),
    ),
    (
        "rabbitmq_policy.present",
        include_str!("schemas/rabbitmq_policy.present.yaml"),
    ),
    (
        "rabbitmq_upstream.absent",
        include_str!("schemas/rabbitmq_upstream.absent.yaml"),
    ),
    (
        "rabbitmq_upstream.present",
        include_str!("schemas/rabbitmq_upstream.present.yaml"),
    ),
    (
        "rabbitmq_user.absent",
        include_str!("schemas/rabbitmq_user.absent.yaml"),
    ),
    (
        "rabbitmq_user.present",
        include_str!("schemas/rabbitmq_user.present.yaml"),
    ),
    (
        "rabbitmq_vhost.absent",
        include_str!("schemas/rabbitmq_vhost.absent.yaml"),
    ),
    (
        "rabbitmq_vhost.present",
        include_str!("schemas/rabbitmq_vhost.present.yaml"),
    ),
    ("raid.absent", include_str!("schemas/raid.absent.yaml")),
    ("raid.present", include_str!("schemas/raid.present.yaml")),
    ("reg.absent", include_str!("schemas/reg.absent.yaml")),
    (
        "reg.key_absent",
        include_str!("schemas/reg.key_absent.yaml"),
    ),
    ("reg.present", include_str!("schemas/reg.present.yaml")),
    ("salt.function", include_str!("schemas/salt.function.yaml")),
    (
        "salt.parallel_runners",
        include_str!("schemas/salt.parallel_runners.yaml"),
    ),
    ("salt.runner", include_str!("schemas/salt.runner.yaml")),
    ("salt.state", include_str!("schemas/salt.state.yaml")),
    (
        "salt.wait_for_event",
        include_str!("schemas/salt.wait_for_event.yaml"),
    ),
    ("salt.wheel", include_str!("schemas/salt.wheel.yaml")),
    (
        "salt_proxy.configure_proxy",
        include_str!("schemas/salt_proxy.configure_proxy.yaml"),
    ),
    (
        "saltutil.sync_all",
        include_str!("schemas/saltutil.sync_all.yaml"),
    ),
    (
        "saltutil.sync_beacons",
        include_str!("schemas/saltutil.sync_beacons.yaml"),
    ),
    (
        "saltutil.sync_clouds",
        include_str!("schemas/saltutil.sync_clouds.yaml"),
    ),
    (
        "saltutil.sync_engines",
        include_str!("schemas/saltutil.sync_engines.yaml"),
    ),
    (
        "saltutil.sync_executors",
        include_str!("schemas/saltutil.sync_executors.yaml"),
    ),
    (
        "saltutil.sync_grains",
        include_str!("schemas/saltutil.sync_grains.yaml"),
    ),
    (
        "saltutil.sync_log_handlers",
        include_str!("schemas/saltutil.sync_log_handlers.yaml"),
    ),
    (
        "saltutil.sync_matchers",
        include_str!("schemas/saltutil.sync_matchers.yaml"),
    ),
    (
        "saltutil.sync_modules",
        include_str!("schemas/saltutil.sync_modules.yaml"),
    ),
    (
        "saltutil.sync_output",
        include_str!("schemas/saltutil.sync_output.yaml"),
    ),
    (
        "saltutil.sync_outputters",
        include_str!("schemas/saltutil.sync_outputters.yaml"),
    ),
    (
        "saltutil.sync_pillar",
        include_str!("schemas/saltutil.sync_pillar.yaml"),
    ),
    (
        "saltutil.sync_proxymodules",
        include_str!("schemas/saltutil.sync_proxymodules.yaml"),
    ),
    (
        "saltutil.sync_renderers",
        include_str!("schemas/saltutil.sync_renderers.yaml"),
    ),
    (
        "saltutil.sync_resources",
        include_str!("schemas/saltutil.sync_resources.yaml"),
    ),
    (
        "saltutil.sync_returners",
        include_str!("schemas/saltutil.sync_returners.yaml"),
    ),
    (
        "saltutil.sync_sdb",
        include_str!("schemas/saltutil.sync_sdb.yaml"),
    ),
    (
        "saltutil.sync_serializers",
        include_str!("schemas/saltutil.sync_serializers.yaml"),
    ),
    (
        "saltutil.sync_states",
        include_str!("schemas/saltutil.sync_states.yaml"),
    ),
    (
        "saltutil.sync_thorium",
        include_str!("schemas/saltutil.sync_thorium.yaml"),
    ),
    (
        "saltutil.sync_tops",
        include_str!("schemas/saltutil.sync_tops.yaml"),
    ),
    (
        "saltutil.sync_utils",
        include_str!("schemas/saltutil.sync_utils.yaml"),
    ),
    (
        "saltutil.sync_wrapper",
        include_str!("schemas/saltutil.sync_wrapper.yaml"),
    ),
    (
        "schedule.absent",
        include_str!("schemas/schedule.absent.yaml"),
    ),
    (
        "schedule.disabled",
        include_str!("schemas/schedule.disabled.yaml"),
    ),
    (
        "schedule.enabled",
        include_str!("schemas/schedule.enabled.yaml"),
    ),
    (
        "schedule.present",
        include_str!("schemas/schedule.present.yaml"),
    ),
    (
        "selinux.boolean",
        include_str!("schemas/selinux.boolean.yaml"),
    ),
    (
        "selinux.fcontext_policy_absent",
        include_str!("schemas/selinux.fcontext_policy_absent.yaml"),
    ),
    (
        "selinux.fcontext_policy_applied",
        include_str!("schemas/selinux.fcontext_policy_applied.yaml"),
    ),
    (
        "selinux.fcontext_policy_present",
        include_str!("schemas/selinux.fcontext_policy_present.yaml"),
    ),
    (
        "selinux.mod_aggregate",
        include_str!("schemas/selinux.mod_aggregate.yaml"),
    ),
    ("selinux.mode", include_str!("schemas/selinux.mode.yaml")),
    (
        "selinux.module",
        include_str!("schemas/selinux.module.yaml"),
    ),
    (
        "selinux.module_install",
        include_str!("schemas/selinux.module_install.yaml"),
    ),
    (
        "selinux.module_remove",
        include_str!("schemas/selinux.module_remove.yaml"),
    ),
    (
        "selinux.port_policy_absent",
        include_str!("schemas/selinux.port_policy_absent.yaml"),
    ),
    (
        "selinux.port_policy_present",
        include_str!("schemas/selinux.port_policy_present.yaml"),
    ),
    ("service.dead", include_str!("schemas/service.dead.yaml")),
    (
        "service.disabled",
        include_str!("schemas/service.disabled.yaml"),
    ),
    (
        "service.enabled",
        include_str!("schemas/service.enabled.yaml"),
    ),
    (
        "service.masked",
        include_str!("schemas/service.masked.yaml"),
    ),
    (
        "service.mod_beacon",
        include_str!("schemas/service.mod_beacon.yaml"),
    ),
    (
        "service.mod_watch",
        include_str!("schemas/service.mod_watch.yaml"),
    ),
    (
        "service.running",
        include_str!("schemas/service.running.yaml"),
    ),
    (
        "service.unmasked",
        include_str!("schemas/service.unmasked.yaml"),
    ),
    (
        "ssh_auth.absent",
        include_str!("schemas/ssh_auth.absent.yaml"),
    ),
    (
        "ssh_auth.manage",
        include_str!("schemas/ssh_auth.manage.yaml"),
    ),
    (
        "ssh_auth.present",
        include_str!("schemas/ssh_auth.present.yaml"),
    ),
    (
        "ssh_known_hosts.absent",
        include_str!("schemas/ssh_known_hosts.absent.yaml"),
    ),
    (
        "ssh_known_hosts.present",
        include_str!("schemas/ssh_known_hosts.present.yaml"),
    ),
    (
        "ssh_pki.certificate_managed",
        include_str!("schemas/ssh_pki.certificate_managed.yaml"),
    ),
    (
        "ssh_pki.certificate_managed_ssh",
        include_str!("schemas/ssh_pki.certificate_managed_ssh.yaml"),
    ),
    (
        "ssh_pki.private_key_managed",
        include_str!("schemas/ssh_pki.private_key_managed.yaml"),
    ),
    (
        "ssh_pki.private_key_managed_ssh",
        include_str!("schemas/ssh_pki.private_key_managed_ssh.yaml"),
    ),
    (
        "ssh_pki.public_key_managed",
        include_str!("schemas/ssh_pki.public_key_managed.yaml"),
    ),
    (
        "stateconf.context",
        include_str!("schemas/stateconf.context.yaml"),
    ),
    ("stateconf.set", include_str!("schemas/stateconf.set.yaml")),
    (
        "status.loadavg",
        include_str!("schemas/status.loadavg.yaml"),
    ),
    (
        "status.process",
        include_str!("schemas/status.process.yaml"),
    ),
    (
        "sysctl.present",
        include_str!("schemas/sysctl.present.yaml"),
    ),
    ("sysfs.present", include_str!("schemas/sysfs.present.yaml")),
    (
        "syslog_ng.config",
        include_str!("schemas/syslog_ng.config.yaml"),
    ),
    (
        "syslog_ng.reloaded",
        include_str!("schemas/syslog_ng.reloaded.yaml"),
    ),
    (
        "syslog_ng.started",
        include_str!("schemas/syslog_ng.started.yaml"),
    ),
    (
        "syslog_ng.stopped",
        include_str!("schemas/syslog_ng.stopped.yaml"),
    ),
    (
        "test.check_pillar",
        include_str!("schemas/test.check_pillar.yaml"),
    ),
    (
        "test.configurable_test_state",
        include_str!("schemas/test.configurable_test_state.yaml"),
    ),
    (
        "test.fail_with_changes",
        include_str!("schemas/test.fail_with_changes.yaml"),
    ),
    (
        "test.fail_without_changes",
        include_str!("schemas/test.fail_without_changes.yaml"),
    ),
    (
        "test.mod_watch",
        include_str!("schemas/test.mod_watch.yaml"),
    ),
    ("test.nop", include_str!("schemas/test.nop.yaml")),
    (
        "test.show_notification",
        include_str!("schemas/test.show_notification.yaml"),
    ),
    (
        "test.succeed_with_changes",
        include_str!("schemas/test.succeed_with_changes.yaml"),
    ),
    (
        "test.succeed_without_changes",
        include_str!("schemas/test.succeed_without_changes.yaml"),
    ),
    (
        "timezone.system",
        include_str!("schemas/timezone.system.yaml"),
    ),
    ("user.absent", include_str!("schemas/user.absent.yaml")),
    ("user.present", include_str!("schemas/user.present.yaml")),
    (
        "virtualenv.manage",
        include_str!("schemas/virtualenv.manage.yaml"),
    ),
    (
        "virtualenv.managed",
        include_str!("schemas/virtualenv.managed.yaml"),
    ),
    (
        "winrepo.genrepo",
        include_str!("schemas/winrepo.genrepo.yaml"),
    ),
    (
        "x509.certificate_managed",
        include_str!("schemas/x509.certificate_managed.yaml"),
    ),
    (
        "x509.certificate_managed_ssh",
        include_str!("schemas/x509.certificate_managed_ssh.yaml"),
    ),
    (
        "x509.crl_managed",
        include_str!("schemas/x509.crl_managed.yaml"),
    ),
    (
        "x509.csr_managed",
        include_str!("schemas/x509.csr_managed.yaml"),
    ),
    (
        "x509.pem_managed",
        include_str!("schemas/x509.pem_managed.yaml"),
    ),
    (
        "x509.private_key_managed",
        include_str!("schemas/x509.private_key_managed.yaml"),
    ),
    (
        "x509.private_key_managed_ssh",
        include_str!("schemas/x509.private_key_managed_ssh.yaml"),
    ),
];

/// State modules that did not load where the data was made, with Salt's reason
/// (`module<TAB>reason` lines).
pub(super) const NOT_LOADED: &str = include_str!("not-loaded.tsv");
