"""Site boilerplate in five languages for the page-pair suite (written here, parallel lists).

Menu labels (one entry per meaning, the same index in every language) and box texts
(cookie notices, newsletter forms, ads, copyright lines): what real sites put around their
translated content. Index k of every language is the translation of index k of English.
"""

from __future__ import annotations

MENU: dict[str, tuple[str, ...]] = {
    "en": (
        "Home", "News", "About us", "Contact", "Products", "Services", "Careers", "Press",
        "Events", "Blog", "Shop", "Support", "Downloads", "Partners", "Imprint", "Privacy",
        "Terms of use", "Sitemap", "Search", "Login", "Register", "Help", "FAQ", "Archive",
        "Gallery", "Videos", "Team", "History", "Locations", "Investors", "Sustainability",
        "Newsletter", "Catalogue", "Prices", "Offers", "Delivery", "Returns", "Accessibility",
        "Cookies", "Community",
    ),
    "de": (
        "Startseite", "Aktuelles", "Über uns", "Kontakt", "Produkte", "Leistungen", "Karriere",
        "Presse", "Veranstaltungen", "Blog", "Shop", "Kundendienst", "Downloads", "Partner",
        "Impressum", "Datenschutz", "Nutzungsbedingungen", "Seitenübersicht", "Suche",
        "Anmelden", "Registrieren", "Hilfe", "Häufige Fragen", "Archiv", "Galerie", "Videos",
        "Team", "Geschichte", "Standorte", "Investoren", "Nachhaltigkeit", "Newsletter",
        "Katalog", "Preise", "Angebote", "Lieferung", "Rücksendungen", "Barrierefreiheit",
        "Cookies", "Gemeinschaft",
    ),
    "fr": (
        "Accueil", "Actualités", "Qui sommes-nous", "Contact", "Produits", "Services",
        "Carrières", "Presse", "Événements", "Blog", "Boutique", "Assistance",
        "Téléchargements", "Partenaires", "Mentions légales", "Confidentialité",
        "Conditions d'utilisation", "Plan du site", "Recherche", "Connexion", "Inscription",
        "Aide", "Questions fréquentes", "Archives", "Galerie", "Vidéos", "Équipe", "Histoire",
        "Implantations", "Investisseurs", "Développement durable", "Lettre d'information",
        "Catalogue", "Tarifs", "Offres", "Livraison", "Retours", "Accessibilité", "Cookies",
        "Communauté",
    ),
    "zh": (
        "首页", "新闻", "关于我们", "联系我们", "产品", "服务", "招聘", "媒体", "活动", "博客",
        "商店", "支持", "下载", "合作伙伴", "版权信息", "隐私", "使用条款", "网站地图", "搜索",
        "登录", "注册", "帮助", "常见问题", "存档", "图库", "视频", "团队", "历史", "地点",
        "投资者", "可持续发展", "通讯", "目录", "价格", "优惠", "配送", "退货", "无障碍",
        "Cookie", "社区",
    ),
    "ja": (
        "ホーム", "ニュース", "会社概要", "お問い合わせ", "製品", "サービス", "採用情報",
        "プレス", "イベント", "ブログ", "ショップ", "サポート", "ダウンロード", "パートナー",
        "運営者情報", "プライバシー", "利用規約", "サイトマップ", "検索", "ログイン", "会員登録",
        "ヘルプ", "よくある質問", "アーカイブ", "ギャラリー", "動画", "チーム", "沿革", "拠点",
        "投資家情報", "サステナビリティ", "ニュースレター", "カタログ", "料金", "キャンペーン",
        "配送", "返品", "アクセシビリティ", "クッキー", "コミュニティ",
    ),
}  # fmt: skip

BOX: dict[str, tuple[str, ...]] = {
    "en": (
        "We use cookies to improve your experience on our website.",
        "By continuing to browse, you agree to our use of cookies.",
        "Subscribe to our newsletter and never miss an offer.",
        "Enter your email address to receive our latest news.",
        "Free shipping on all orders over 50 euros.",
        "Only this week: 20% off the whole catalogue.",
        "Follow us on social media.",
        "All rights reserved.",
        "Questions? Our customer service is available Monday to Friday.",
        "Download our app now.",
        "Share this article.",
        "Read more",
    ),
    "de": (
        "Wir verwenden Cookies, um Ihnen ein besseres Nutzungserlebnis zu bieten.",
        "Wenn Sie weitersurfen, stimmen Sie der Verwendung von Cookies zu.",
        "Abonnieren Sie unseren Newsletter und verpassen Sie kein Angebot mehr.",
        "Geben Sie Ihre E-Mail-Adresse ein, um unsere neuesten Nachrichten zu erhalten.",
        "Kostenloser Versand für alle Bestellungen über 50 Euro.",
        "Nur diese Woche: 20 % Rabatt auf den ganzen Katalog.",
        "Folgen Sie uns in den sozialen Netzwerken.",
        "Alle Rechte vorbehalten.",
        "Fragen? Unser Kundendienst ist von Montag bis Freitag für Sie da.",
        "Laden Sie jetzt unsere App herunter.",
        "Artikel teilen.",
        "Weiterlesen",
    ),
    "fr": (
        "Nous utilisons des cookies pour améliorer votre expérience sur notre site.",
        "En poursuivant votre navigation, vous acceptez l'utilisation des cookies.",
        "Abonnez-vous à notre lettre d'information pour ne manquer aucune offre.",
        "Saisissez votre adresse e-mail pour recevoir nos dernières nouvelles.",
        "Livraison gratuite pour toute commande de plus de 50 euros.",
        "Cette semaine seulement : 20 % de remise sur tout le catalogue.",
        "Suivez-nous sur les réseaux sociaux.",
        "Tous droits réservés.",
        "Des questions ? Notre service client est disponible du lundi au vendredi.",
        "Téléchargez notre application dès maintenant.",
        "Partager cet article.",
        "Lire la suite",
    ),
    "zh": (
        "我们使用Cookie来改善您在本网站上的体验。",
        "继续浏览即表示您同意我们使用Cookie。",
        "订阅我们的通讯，不错过任何优惠。",
        "请输入您的电子邮件地址以接收最新消息。",
        "所有订单满50欧元免运费。",
        "仅限本周：全部商品八折。",
        "请在社交媒体上关注我们。",
        "版权所有。",
        "有问题吗？我们的客服周一至周五为您服务。",
        "立即下载我们的应用。",
        "分享这篇文章。",
        "阅读更多",
    ),
    "ja": (
        "当サイトでは、より良い体験のためにクッキーを使用しています。",
        "閲覧を続けると、クッキーの使用に同意したものとみなされます。",
        "ニュースレターに登録して、お得な情報を見逃さないでください。",
        "最新情報を受け取るにはメールアドレスを入力してください。",
        "50ユーロ以上のご注文で送料無料。",
        "今週限り：全商品20％オフ。",
        "ソーシャルメディアでフォローしてください。",
        "無断転載を禁じます。",
        "ご質問は月曜日から金曜日までカスタマーサービスへ。",
        "今すぐアプリをダウンロード。",
        "この記事をシェアする。",
        "続きを読む",
    ),
}

NO_SPACE_LANGUAGES = frozenset({"zh", "ja"})


def sentence_joiner(lang: str) -> str:
    """How sentences of one paragraph are joined: no space in Chinese and Japanese."""
    return "" if lang in NO_SPACE_LANGUAGES else " "
