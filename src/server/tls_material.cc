#include "src/server/tls_material.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <tuple>
#include <vector>

#include "fmt/format.h"
#include "ksched/strings.h"
#include "src/base/file.h"

namespace ksched::server {
namespace {

// The entries of `nid` in the certificate's subject.
std::vector<std::string> SubjectEntries(X509* cert, int nid) {
  std::vector<std::string> out;
  X509_NAME* name = X509_get_subject_name(cert);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(name, nid, i)) >= 0;) {
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
    if (n < 0) continue;
    out.emplace_back(reinterpret_cast<char*>(utf8), n);
    OPENSSL_free(utf8);
  }
  return out;
}

}  // namespace

absl::Status SelfSigned(X509Ptr* cert, KeyPtr* key, const char* usage) {
  key->reset(EVP_RSA_gen(2048));
  if (*key == nullptr) return absl::InternalError("generating an RSA key failed");
  cert->reset(X509_new());
  X509* x = cert->get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600);
  X509_set_pubkey(x, key->get());
  const std::string cn = fmt::format("localhost@{}", std::time(nullptr));
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  for (auto [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                            std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                            std::pair{NID_ext_key_usage, usage}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr) return absl::InternalError("building the certificate's extensions failed");
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(x, key->get(), EVP_sha256()) == 0) {
    return absl::InternalError("signing the self-signed certificate failed");
  }
  return absl::OkStatus();
}

absl::Status ReadPem(const std::string& cert_file, const std::string& key_file, X509Ptr* cert,
                     KeyPtr* key, std::string* cert_pem) {
  std::string key_pem;
  for (auto [flag, file, text] : {std::tuple{"--tls-cert-file", &cert_file, cert_pem},
                                  std::tuple{"--tls-private-key-file", &key_file, &key_pem}}) {
    absl::StatusOr<std::string> read = ReadFile(*file);
    if (!read.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", flag, AsStd(read.status().message())));
    }
    *text = *std::move(read);
  }
  auto bio = [](const std::string& pem) {
    return std::unique_ptr<BIO, int (*)(BIO*)>(
        BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  };
  cert->reset(PEM_read_bio_X509(bio(*cert_pem).get(), nullptr, nullptr, nullptr));
  if (*cert == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-cert-file: \"{}\" holds no PEM certificate", cert_file));
  }
  key->reset(PEM_read_bio_PrivateKey(bio(key_pem).get(), nullptr, nullptr, nullptr));
  if (*key == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-private-key-file: \"{}\" holds no PEM private key", key_file));
  }
  return absl::OkStatus();
}

absl::StatusOr<X509StorePtr> ClientCaStore(const std::string& pem, const std::string& source) {
  X509StorePtr store(X509_STORE_new(), &X509_STORE_free);
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                          &BIO_free);
  int count = 0;
  while (X509Ptr cert{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) {
    X509_STORE_add_cert(store.get(), cert.get());
    ++count;
  }
  ERR_clear_error();  // The end of the bundle reads as an error.
  if (count == 0) {
    return absl::InvalidArgumentError(fmt::format("{}: no PEM certificate", source));
  }
  X509_STORE_set_purpose(store.get(), X509_PURPOSE_SSL_CLIENT);
  return store;
}

absl::StatusOr<std::optional<UserInfo>> CertificateUser(X509_STORE* client_ca,
                                                        const gnutls_datum_t* chain,
                                                        unsigned int length) {
  if (chain == nullptr || length == 0) return std::nullopt;
  auto decode = [](const gnutls_datum_t& der) {
    const unsigned char* p = der.data;
    return X509Ptr(d2i_X509(nullptr, &p, static_cast<long>(der.size)));
  };
  X509Ptr leaf = decode(chain[0]);
  if (leaf == nullptr) return absl::UnauthenticatedError("the client certificate does not parse");
  std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)> intermediates(
      sk_X509_new_null(), [](STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); });
  for (unsigned int i = 1; i < length; ++i) {
    if (X509Ptr x = decode(chain[i])) sk_X509_push(intermediates.get(), x.release());
  }
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      &X509_STORE_CTX_free);
  if (client_ca == nullptr ||
      X509_STORE_CTX_init(ctx.get(), client_ca, leaf.get(), intermediates.get()) != 1 ||
      X509_verify_cert(ctx.get()) != 1) {
    const int err = client_ca == nullptr ? X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
                                         : X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return absl::UnauthenticatedError(
        fmt::format("verifying certificate: {}", X509_verify_cert_error_string(err)));
  }
  std::vector<std::string> cn = SubjectEntries(leaf.get(), NID_commonName);
  UserInfo user{.name = cn.empty() ? "" : cn.front(),
                .groups = SubjectEntries(leaf.get(), NID_organizationName)};
  if (user.name.empty()) return absl::UnauthenticatedError("the certificate names no user (CN)");
  user.groups.push_back("system:authenticated");
  return user;
}

std::string Pem(const std::function<int(BIO*)>& write) {
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  write(bio.get());
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

absl::Status CheckClientCa(const std::string& pem, const std::string& source) {
  return ClientCaStore(pem, source).status();
}

}  // namespace ksched::server
