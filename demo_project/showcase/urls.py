from django.urls import path

from . import views

urlpatterns = [
    path("chart.png", views.ChartView.as_view(), name="chart"),
    path("beep.wav", views.BeepView.as_view(), name="beep"),
    path("report.csv", views.ReportCSVView.as_view(), name="report-csv"),
    path("feed.xml", views.FeedXMLView.as_view(), name="feed-xml"),
    path("export.pdf", views.ExportPDFView.as_view(), name="export-pdf"),
    path("summary/", views.SummaryView.as_view(), name="summary"),
    path("sync/", views.FailingView.as_view(), name="sync"),
]
