//! The profile form's Network section: the proxy (System / None / this URL, with its
//! sign-in), extra roots, client certificate and pinned certificate as typed, and the settings
//! and keyring passwords they become.

use crate::net::{NetworkSettings, ProxySetting};
use crate::secret::Secret;
use crate::worker::NetworkPasswords;

/// The proxy choice of the form's Network section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum ProxyMode {
    /// The environment's, else the system's.
    #[default]
    System,
    /// Direct.
    None,
    /// The URL typed.
    Url,
}

/// The form's Network section: the profile's proxy, extra roots, client certificate and pinned
/// certificate; the passwords typed go to the keyring (never to the profiles file).
#[derive(Debug, Clone, Default)]
pub(super) struct NetworkDraft {
    pub(super) proxy: ProxyMode,
    pub(super) proxy_url: String,
    pub(super) proxy_password: String,
    pub(super) ca_file: String,
    pub(super) client_cert: String,
    pub(super) client_cert_password: String,
    pub(super) pinned: String,
}

impl NetworkDraft {
    pub(super) fn of(settings: &NetworkSettings) -> Self {
        let (proxy, proxy_url) = match &settings.proxy {
            None | Some(ProxySetting::System) => (ProxyMode::System, String::new()),
            Some(ProxySetting::None) => (ProxyMode::None, String::new()),
            Some(ProxySetting::Url(url)) => (ProxyMode::Url, url.clone()),
        };
        let path = |p: &std::path::PathBuf| p.display().to_string();
        NetworkDraft {
            proxy,
            proxy_url,
            ca_file: settings.ca_files.iter().map(path).collect::<Vec<_>>().join("; "),
            client_cert: settings.client_cert.as_ref().map(path).unwrap_or_default(),
            pinned: settings.pinned_sha256.clone().unwrap_or_default(),
            ..Default::default()
        }
    }

    pub(super) fn settings(&self) -> Result<NetworkSettings, String> {
        let proxy = match self.proxy {
            ProxyMode::System => None,
            ProxyMode::None => Some(ProxySetting::None),
            ProxyMode::Url => match self.proxy_url.trim().parse::<ProxySetting>()? {
                ProxySetting::Url(url) => Some(ProxySetting::Url(url)),
                _ => return Err("give the proxy's URL, as http://host:port".into()),
            },
        };
        let pinned = crate::net::normalize_fingerprint(&self.pinned);
        if !pinned.is_empty() && pinned.len() != 64 {
            return Err("a pinned SHA-256 fingerprint has 64 hexadecimal digits".into());
        }
        Ok(NetworkSettings {
            proxy,
            ca_files: self.ca_file.split(';').map(str::trim).filter(|p| !p.is_empty()).map(Into::into).collect(),
            client_cert: Some(self.client_cert.trim()).filter(|p| !p.is_empty()).map(Into::into),
            pinned_sha256: Some(pinned).filter(|p| !p.is_empty()),
        })
    }

    /// The passwords typed, for the keyring (none typed: the kept ones stay).
    pub(super) fn passwords(&self) -> NetworkPasswords {
        let typed = |text: &str| Some(Secret::new(text.to_owned())).filter(|s| !s.is_empty());
        NetworkPasswords { proxy: typed(&self.proxy_password), client_cert: typed(&self.client_cert_password) }
    }
}

/// The form's Network section: Proxy (System / None / this URL, sign-in), extra roots, client
/// certificate, pinned certificate; every field named as it is labelled.
pub(super) fn network_ui(ui: &mut egui::Ui, network: &mut NetworkDraft) {
    ui.separator();
    ui.strong("Network");
    let label = ui.label("Proxy");
    let mode = |m: ProxyMode| match m {
        ProxyMode::System => "System",
        ProxyMode::None => "None",
        ProxyMode::Url => "This URL",
    };
    let choices = [ProxyMode::System, ProxyMode::None, ProxyMode::Url].map(|m| (m, mode(m).to_owned()));
    let shown = mode(network.proxy).to_owned();
    crate::ui::widgets::a11y::combo(ui, "profile-proxy", label.id, shown, &mut network.proxy, choices);
    ui.weak(match network.proxy {
        ProxyMode::System => "the environment's HTTPS_PROXY, else the system's settings",
        ProxyMode::None => "always direct",
        ProxyMode::Url => "http://USER@host:port; the user's password below goes to the OS keyring",
    });
    egui::Grid::new("profile-network").num_columns(2).show(ui, |ui| {
        if network.proxy == ProxyMode::Url {
            let label = ui.label("Proxy URL");
            ui.add(
                egui::TextEdit::singleline(&mut network.proxy_url)
                    .hint_text("http://proxy.corp:3128")
                    .desired_width(320.0),
            )
            .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Proxy password");
            ui.add(egui::TextEdit::singleline(&mut network.proxy_password).password(true).desired_width(320.0))
                .labelled_by(label.id);
            ui.end_row();
        }
        for (label, value, hint) in [
            ("Extra roots", &mut network.ca_file, "PEM files added to the system's roots, separated by ;"),
            ("Client certificate", &mut network.client_cert, "PEM with its key, or .p12/.pfx"),
        ] {
            let label = ui.label(label);
            ui.add(egui::TextEdit::singleline(value).hint_text(hint).desired_width(320.0)).labelled_by(label.id);
            ui.end_row();
        }
        let label = ui.label("Client certificate password");
        ui.add(egui::TextEdit::singleline(&mut network.client_cert_password).password(true).desired_width(320.0))
            .labelled_by(label.id);
        ui.end_row();
        let label = ui.label("Pinned certificate");
        ui.add(
            egui::TextEdit::singleline(&mut network.pinned)
                .hint_text("SHA-256 of a self-signed development server's certificate")
                .desired_width(320.0),
        )
        .labelled_by(label.id);
        ui.end_row();
    });
}
